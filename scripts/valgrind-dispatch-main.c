// For the valgrind run only. Valgrind 3.19 crashes inside libdispatch's dispatch_main, whose
// main-thread TSD destructor parks in sigsuspend after pthread_exit so that process-directed
// signals have a thread to land on (dispatch's workers block them). Same contract here: a
// plain thread with every signal unblocked parks in pause(), and the main thread exits so that
// libdispatch hands the main queue to its workers. The test runner ends the process with exit().
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static void *signal_sink(void *arg) {
    (void)arg;
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
    for (;;) pause();
    return NULL;
}

void dispatch_main(void) {
    pthread_t t;
    pthread_create(&t, NULL, signal_sink, NULL);
    pthread_exit(NULL);
}
