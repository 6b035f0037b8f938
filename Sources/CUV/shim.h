#ifndef PLAYERHOST_CUV_SHIM_H
#define PLAYERHOST_CUV_SHIM_H
// libuv for Swift. Only Sources/PlayerHost/Loop imports this module.
//
// No _GNU_SOURCE here: it changes glibc declarations (e.g. fd_set's member names), and Clang then
// refuses to merge this module's view of the system headers with SwiftGlibc's.
#include <uv.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/// Linux's `struct ucred`, which glibc only declares under _GNU_SOURCE.
struct ph_ucred {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};

/// The uid and pid of the peer of a connected Unix socket (SO_PEERCRED), or -1 with errno set.
static inline int ph_peer_uid(int fd, uid_t *uid, pid_t *pid) {
    struct ph_ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    if (uid) *uid = cred.uid;
    if (pid) *pid = cred.pid;
    return 0;
}

#endif
