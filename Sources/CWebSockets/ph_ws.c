// See include/ph_ws.h. Everything here runs on the daemon's loop thread: libwebsockets is
// driven by the daemon's own libuv loop (a foreign loop), never a thread of its own.
#include "ph_ws.h"

#include <libwebsockets.h>
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <uv.h>
#include <sys/random.h>
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- libwebsockets and OpenSSL, loaded when the remote is first used ----
// The daemon does not link them: mapping libwebsockets, libssl and libcrypto (and relocating
// them) cost every daemon ~1.9 MiB of resident memory at start, remote on or off
// (docs/PERFORMANCE.md, "Footprint"). The first call that needs them (a server made, a
// certificate made or read, a hash) loads libwebsockets, and through its own dependencies
// libssl and libcrypto, and resolves the functions below; everything after calls through these
// pointers (the names are redefined to them further down, so the code reads as before).
// The soname is the one of the version these headers belong to (libwebsockets 4.1, on Debian 12,
// is libwebsockets.so.17): a struct laid out for one version must not go to another. A version
// not in the list loads the -dev package's own link, which belongs to these headers.
#if LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR == 0
#define PH_LWS_SONAME "libwebsockets.so.16"
#elif LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR == 1
#define PH_LWS_SONAME "libwebsockets.so.17"
#elif LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR == 2
#define PH_LWS_SONAME "libwebsockets.so.18"
#elif LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR == 3
#define PH_LWS_SONAME "libwebsockets.so.19"
#else
#define PH_LWS_SONAME "libwebsockets.so"
#endif

#define PH_FUNCTIONS(X) \
    X(lws_context_user) X(lws_get_context) X(lws_callback_http_dummy) X(lws_write) \
    X(lws_http_transaction_completed) X(lws_is_first_fragment) X(lws_is_final_fragment) \
    X(lws_frame_is_binary) X(lws_set_log_level) X(lws_create_context) X(lws_get_vhost_by_name) \
    X(lws_get_vhost_listen_port) X(lws_context_destroy) X(lws_hdr_total_length) X(lws_hdr_copy) \
    X(lws_get_urlarg_by_name) X(lws_get_socket_fd) X(lws_wsi_user) X(lws_add_http_common_headers) \
    X(lws_add_http_header_by_name) X(lws_finalize_http_header) X(lws_callback_on_writable) \
    X(lws_set_timeout) X(lws_cancel_service) X(lws_cancel_service_pt) \
    X(SHA256) X(EVP_PKEY_Q_keygen) X(X509_new) X(X509_set_version) X(BN_bin2bn) X(BN_to_ASN1_INTEGER) \
    X(X509_get_serialNumber) X(BN_free) X(X509_gmtime_adj) X(X509_getm_notBefore) X(X509_getm_notAfter) \
    X(X509_set_pubkey) X(X509_get_subject_name) X(X509_NAME_add_entry_by_txt) X(X509_set_issuer_name) \
    X(X509V3_set_ctx) X(X509V3_EXT_conf_nid) X(X509_add_ext) X(X509_EXTENSION_free) X(X509_sign) \
    X(EVP_sha256) X(X509_free) X(EVP_PKEY_free) X(PEM_write_PrivateKey) X(PEM_write_X509) \
    X(PEM_read_X509) X(X509_digest)

#define PH_POINTER(name) static __typeof__(name) *ph_##name;
PH_FUNCTIONS(PH_POINTER)

/// Loads libwebsockets (with libssl and libcrypto) once and resolves every function above, on
/// whichever thread asks first (the loop, or the worker that makes a certificate): 0, or -1 with
/// why in `error`. A failure is kept, so it is reported the same way each time, and nothing is
/// called through a null pointer.
static pthread_once_t ph_load_once = PTHREAD_ONCE_INIT;
static char ph_load_error[256];

static void ph_load_now(void) {
    void *library = dlopen(PH_LWS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(ph_load_error, sizeof ph_load_error, "cannot load %s (the web remote's library): %s",
                 PH_LWS_SONAME, why ? why : "?");
        return;
    }
#define PH_RESOLVE(name) \
    if (!(ph_##name = (__typeof__(ph_##name))dlsym(library, #name))) { \
        snprintf(ph_load_error, sizeof ph_load_error, "%s has no %s", PH_LWS_SONAME, #name); \
        return; \
    }
    PH_FUNCTIONS(PH_RESOLVE)
#undef PH_RESOLVE
}

static int ph_load(char *error, size_t error_length) {
    pthread_once(&ph_load_once, ph_load_now);
    if (ph_load_error[0] == 0) return 0;
    if (error && error_length) snprintf(error, error_length, "%s", ph_load_error);
    return -1;
}

// From here on the code calls the resolved pointers under the libraries' own names.
#define PH_REDIRECT(name) ph_##name
#define lws_context_user PH_REDIRECT(lws_context_user)
#define lws_get_context PH_REDIRECT(lws_get_context)
#define lws_callback_http_dummy PH_REDIRECT(lws_callback_http_dummy)
#define lws_write PH_REDIRECT(lws_write)
#define lws_http_transaction_completed PH_REDIRECT(lws_http_transaction_completed)
#define lws_is_first_fragment PH_REDIRECT(lws_is_first_fragment)
#define lws_is_final_fragment PH_REDIRECT(lws_is_final_fragment)
#define lws_frame_is_binary PH_REDIRECT(lws_frame_is_binary)
#define lws_set_log_level PH_REDIRECT(lws_set_log_level)
#define lws_create_context PH_REDIRECT(lws_create_context)
#define lws_get_vhost_by_name PH_REDIRECT(lws_get_vhost_by_name)
#define lws_get_vhost_listen_port PH_REDIRECT(lws_get_vhost_listen_port)
#define lws_context_destroy PH_REDIRECT(lws_context_destroy)
#define lws_hdr_total_length PH_REDIRECT(lws_hdr_total_length)
#define lws_hdr_copy PH_REDIRECT(lws_hdr_copy)
#define lws_get_urlarg_by_name PH_REDIRECT(lws_get_urlarg_by_name)
#define lws_get_socket_fd PH_REDIRECT(lws_get_socket_fd)
#define lws_wsi_user PH_REDIRECT(lws_wsi_user)
#define lws_add_http_common_headers PH_REDIRECT(lws_add_http_common_headers)
#define lws_add_http_header_by_name PH_REDIRECT(lws_add_http_header_by_name)
#define lws_finalize_http_header PH_REDIRECT(lws_finalize_http_header)
#define lws_callback_on_writable PH_REDIRECT(lws_callback_on_writable)
#define lws_set_timeout PH_REDIRECT(lws_set_timeout)
#define lws_cancel_service PH_REDIRECT(lws_cancel_service)
#define lws_cancel_service_pt PH_REDIRECT(lws_cancel_service_pt)
#define SHA256 PH_REDIRECT(SHA256)
#define EVP_PKEY_Q_keygen PH_REDIRECT(EVP_PKEY_Q_keygen)
#define X509_new PH_REDIRECT(X509_new)
#define X509_set_version PH_REDIRECT(X509_set_version)
#define BN_bin2bn PH_REDIRECT(BN_bin2bn)
#define BN_to_ASN1_INTEGER PH_REDIRECT(BN_to_ASN1_INTEGER)
#define X509_get_serialNumber PH_REDIRECT(X509_get_serialNumber)
#define BN_free PH_REDIRECT(BN_free)
#define X509_gmtime_adj PH_REDIRECT(X509_gmtime_adj)
#define X509_getm_notBefore PH_REDIRECT(X509_getm_notBefore)
#define X509_getm_notAfter PH_REDIRECT(X509_getm_notAfter)
#define X509_set_pubkey PH_REDIRECT(X509_set_pubkey)
#define X509_get_subject_name PH_REDIRECT(X509_get_subject_name)
#define X509_NAME_add_entry_by_txt PH_REDIRECT(X509_NAME_add_entry_by_txt)
#define X509_set_issuer_name PH_REDIRECT(X509_set_issuer_name)
#define X509V3_set_ctx PH_REDIRECT(X509V3_set_ctx)
#define X509V3_EXT_conf_nid PH_REDIRECT(X509V3_EXT_conf_nid)
#define X509_add_ext PH_REDIRECT(X509_add_ext)
#define X509_EXTENSION_free PH_REDIRECT(X509_EXTENSION_free)
#define X509_sign PH_REDIRECT(X509_sign)
#define EVP_sha256 PH_REDIRECT(EVP_sha256)
#define X509_free PH_REDIRECT(X509_free)
#define EVP_PKEY_free PH_REDIRECT(EVP_PKEY_free)
#define PEM_write_PrivateKey PH_REDIRECT(PEM_write_PrivateKey)
#define PEM_write_X509 PH_REDIRECT(PEM_write_X509)
#define PEM_read_X509 PH_REDIRECT(PEM_read_X509)
#define X509_digest PH_REDIRECT(X509_digest)

struct ph_ws_server {
    struct lws_context *context;
    ph_ws_callbacks cb;
    void (*done)(void *user);
    void *done_user;
    int destroying;
    struct lws_protocols protocols[2];
};

/// One queued HTTP response per connection (lws' per-session data, zeroed and freed by lws).
struct ph_ws_session {
    unsigned char *response;   /* LWS_PRE bytes, then the header block and the body */
    size_t response_length;
};

static ph_ws_server *server_of(struct lws *wsi) {
    return (ph_ws_server *)lws_context_user(lws_get_context(wsi));
}

/// The numeric address of the socket's peer (an IPv4-mapped IPv6 address as IPv4), or "?":
/// one spelling for the accept filter and `ph_ws_peer`, so per-address counts match.
static void peer_text(int fd, char *buffer, size_t length) {
    struct sockaddr_storage a;
    socklen_t n = sizeof a;
    snprintf(buffer, length, "?");
    if (fd < 0 || getpeername(fd, (struct sockaddr *)&a, &n) != 0) return;
    if (a.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&a)->sin_addr, buffer, (socklen_t)length);
    } else if (a.ss_family == AF_INET6) {
        struct in6_addr *v6 = &((struct sockaddr_in6 *)&a)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(v6)) inet_ntop(AF_INET, &v6->s6_addr[12], buffer, (socklen_t)length);
        else inet_ntop(AF_INET6, v6, buffer, (socklen_t)length);
    }
}

static void drop_response(struct ph_ws_session *s) {
    if (s && s->response) {
        free(s->response);
        s->response = NULL;
        s->response_length = 0;
    }
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    struct ph_ws_session *session = (struct ph_ws_session *)user;
    ph_ws_server *server = wsi ? server_of(wsi) : NULL;
    if (!server) return lws_callback_http_dummy(wsi, reason, user, in, len);
    ph_ws_callbacks *cb = &server->cb;
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION: {
        int fd = (int)(intptr_t)in, size = 64 * 1024;
        char peer[INET6_ADDRSTRLEN + 1];
        peer_text(fd, peer, sizeof peer);
        if (server->destroying || cb->accept(cb->user, peer)) return 1;
        // A fixed, small kernel send buffer: a page's messages are small, a reader that does not
        // take them then stalls its writes soon (and is cut off), and 200 remotes cannot pin
        // megabytes of kernel memory each (autotuning would grow it to tcp_wmem's maximum).
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        return 0;
    }
    case LWS_CALLBACK_WSI_CREATE:
        cb->created(cb->user, wsi);
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        cb->destroyed(cb->user, wsi);
        return 0;
    case LWS_CALLBACK_HTTP:
        if (server->destroying) return -1;
        return cb->http(cb->user, wsi, in ? (const char *)in : "/");
    case LWS_CALLBACK_HTTP_WRITEABLE: {
        if (!session || !session->response) return 0;
        unsigned char *start = session->response + LWS_PRE;
        size_t length = session->response_length;
        int written = lws_write(wsi, start, length, LWS_WRITE_HTTP_FINAL);
        drop_response(session);
        if (written < 0 || (size_t)written != length) return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        drop_response(session);
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return server->destroying || cb->ws_filter(cb->user, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        cb->ws_open(cb->user, wsi);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return cb->ws_receive(cb->user, wsi, in, len, lws_is_first_fragment(wsi), lws_is_final_fragment(wsi),
                              lws_frame_is_binary(wsi));
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return cb->ws_writable(cb->user, wsi);
    case LWS_CALLBACK_CLOSED:
        cb->ws_closed(cb->user, wsi);
        return 0;
    case LWS_CALLBACK_PROTOCOL_DESTROY:
        // The last callback of a context being destroyed: nothing calls into Swift after it.
        if (server->destroying && server->done) {
            void (*done)(void *) = server->done;
            server->done = NULL;
            done(server->done_user);
        }
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static void log_line(int level, const char *line) {
    (void)level;
    fprintf(stderr, "libwebsockets: %s", line);
}

ph_ws_server *ph_ws_create(void *uv_loop, const ph_ws_options *options, const ph_ws_callbacks *callbacks,
                           char *error, size_t error_length) {
    if (ph_load(error, error_length) != 0) return NULL;
    lws_set_log_level(LLL_ERR, log_line);
    ph_ws_server *server = calloc(1, sizeof *server);
    if (!server) {
        snprintf(error, error_length, "out of memory");
        return NULL;
    }
    server->cb = *callbacks;
    server->protocols[0].name = "playerhost-remote";
    server->protocols[0].callback = callback;
    server->protocols[0].per_session_data_size = sizeof(struct ph_ws_session);
    server->protocols[0].rx_buffer_size = 4096;

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = { uv_loop };
    info.foreign_loops = loops;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN |
                   LWS_SERVER_OPTION_DISABLE_IPV6;
    info.iface = options->interface_address;
    info.port = options->port > 0 ? options->port : CONTEXT_PORT_NO_LISTEN_SERVER;
    if (options->port == 0) info.port = 0;
    info.protocols = server->protocols;
    info.user = server;
    info.alpn = "http/1.1";
    info.timeout_secs = options->idle_timeout_seconds > 0 ? options->idle_timeout_seconds : 20;
    info.timeout_secs_ah_idle = options->header_timeout_seconds > 0 ? options->header_timeout_seconds : 10;
    info.count_threads = 1;
    info.max_http_header_data = 4096;
    info.max_http_header_pool = 32;
    info.pcontext = &server->context;
    info.server_string = "playerhostd";
    if (options->cert_path && options->key_path) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = options->cert_path;
        info.ssl_private_key_filepath = options->key_path;
    }
    server->context = lws_create_context(&info);
    if (!server->context) {
        snprintf(error, error_length, "libwebsockets could not listen on %s:%d (address in use, or its libuv event library missing?)",
                 options->interface_address ? options->interface_address : "*", options->port);
        free(server);
        return NULL;
    }
    return server;
}

int ph_ws_port(ph_ws_server *server) {
    struct lws_vhost *vh = lws_get_vhost_by_name(server->context, "default");
    return vh ? lws_get_vhost_listen_port(vh) : -1;
}

void ph_ws_destroy(ph_ws_server *server, void (*done)(void *user), void *user) {
    if (!server || server->destroying) return;
    server->destroying = 1;
    server->done = done;
    server->done_user = user;
    struct lws_context *context = server->context;
    if (context) lws_context_destroy(context);
}

// With a foreign libuv loop lws closes its handles and then stops: the application calls
// lws_context_destroy a second time once they are closed, which runs the protocols' destroy and
// frees the context (lws' own foreign-loop example does it after its loop). lws' static handles
// carry the context in `data` until their close callback ran, which is how we see they are done.
static void count_static(uv_handle_t *h, void *arg) {
    struct { void *context; int count; } *c = arg;
    if (h->data == c->context) c->count++;
}

int ph_ws_closing_handles(ph_ws_server *server, void *uv_loop) {
    if (!server->context) return 0;
    struct { void *context; int count; } c = { server->context, 0 };
    uv_walk((uv_loop_t *)uv_loop, count_static, &c);
    return c.count;
}

void ph_ws_finish_destroy(ph_ws_server *server) {
    if (server->context) lws_context_destroy(server->context);
}

void ph_ws_free(ph_ws_server *server) { free(server); }

int ph_ws_is_gone(ph_ws_server *server) { return server->context == NULL; }

int ph_ws_header(struct lws *wsi, int which, char *buffer, int length) {
    static const enum lws_token_indexes tokens[] = {
        WSI_TOKEN_HTTP_COOKIE, WSI_TOKEN_ORIGIN, WSI_TOKEN_HOST, WSI_TOKEN_HTTP_USER_AGENT,
        WSI_TOKEN_HTTP_IF_NONE_MATCH, WSI_TOKEN_GET_URI
    };
    if (which < 0 || which > 5 || length <= 0) return -1;
    int present = lws_hdr_total_length(wsi, tokens[which]);
    if (present <= 0) return -1;
    if (present >= length) return -1;
    return lws_hdr_copy(wsi, buffer, length, tokens[which]);
}

int ph_ws_query(struct lws *wsi, const char *name, char *buffer, int length) {
    // lws matches "name=" and copies the whole "name=value" into `buffer`, returning the value's
    // place in it: move the value to the front.
    char key[64];
    if (snprintf(key, sizeof key, "%s=", name) >= (int)sizeof key) return -1;
    const char *v = lws_get_urlarg_by_name(wsi, key, buffer, length);
    if (!v) return -1;
    size_t n = strlen(v);
    memmove(buffer, v, n + 1);
    return (int)n;
}

int ph_ws_peer(struct lws *wsi, char *buffer, int length) {
    if (length <= 0) return -1;
    peer_text((int)lws_get_socket_fd(wsi), buffer, (size_t)length);
    return (int)strlen(buffer);
}

int ph_ws_http_respond(struct lws *wsi, int status, const char *content_type,
                       const char *const *header_names, const char *const *header_values, int header_count,
                       const void *body, size_t length) {
    struct ph_ws_session *session = (struct ph_ws_session *)lws_wsi_user(wsi);
    if (!session) return -1;
    drop_response(session);
    size_t header_room = 1024;
    for (int i = 0; i < header_count; i++) header_room += strlen(header_names[i]) + strlen(header_values[i]) + 8;
    unsigned char *buffer = malloc(LWS_PRE + header_room + length);
    if (!buffer) return -1;
    unsigned char *start = buffer + LWS_PRE, *p = start, *end = start + header_room;
    if (lws_add_http_common_headers(wsi, (unsigned int)status, content_type, (lws_filepos_t)length, &p, end)) goto fail;
    for (int i = 0; i < header_count; i++) {
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)header_names[i],
                                        (const unsigned char *)header_values[i], (int)strlen(header_values[i]), &p, end))
            goto fail;
    }
    if (lws_finalize_http_header(wsi, &p, end)) goto fail;
    if (length) memcpy(p, body, length);
    session->response = buffer;
    session->response_length = (size_t)(p - start) + length;
    lws_callback_on_writable(wsi);
    return 0;
fail:
    free(buffer);
    return -1;
}

size_t ph_ws_pre(void) { return LWS_PRE; }

// lws writes the frame header into the LWS_PRE bytes before `payload` and sends both from there,
// so one buffer serves every page in turn (on this one thread); a write the kernel takes only
// part of is copied into the connection's own list by lws, so the buffer is free again on return.
int ph_ws_send_shared(struct lws *wsi, unsigned char *payload, size_t length) {
    int written = lws_write(wsi, payload, length, LWS_WRITE_TEXT);
    return written < (int)length ? -1 : 0;
}

void ph_ws_request_writable(struct lws *wsi) { lws_callback_on_writable(wsi); }

// lws re-arms its libuv timer only when it runs its own service: a timeout set from outside its
// callbacks (a host event, an RPC reply) would wait for the next I/O of some connection. Waking the
// service thread (its event pipe, on the same loop) makes it look at its timers now.
// `ph_ws_set_deadline` leaves that to one `ph_ws_wake` after a batch (a change sent to 200 pages).
void ph_ws_set_deadline(struct lws *wsi, int seconds) {
    lws_set_timeout(wsi, seconds > 0 ? PENDING_TIMEOUT_USER_OK : NO_PENDING_TIMEOUT, seconds);
}

void ph_ws_wake(ph_ws_server *server) {
    if (server && server->context && !server->destroying) lws_cancel_service(server->context);
}

void ph_ws_kill(struct lws *wsi) {
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    lws_cancel_service_pt(wsi);
}

int ph_sha256(const void *data, size_t length, unsigned char *out) {
    if (ph_load(NULL, 0) != 0) return -1;
    SHA256(data, length, out);
    return 0;
}

int ph_random(void *out, size_t length) {
    size_t got = 0;
    while (got < length) {
        ssize_t n = getrandom((unsigned char *)out + got, length - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    return 0;
}

// ---- TLS off loopback: a self-signed certificate the daemon makes (run on a worker thread) ----

static int write_private(const char *path, int (*writer)(FILE *, void *), void *object) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) { close(fd); return -1; }
    int ok = writer(f, object);
    if (fclose(f) != 0) ok = 0;
    return ok ? 0 : -1;
}

static int write_key(FILE *f, void *key) { return PEM_write_PrivateKey(f, (EVP_PKEY *)key, NULL, NULL, 0, NULL, NULL); }
static int write_cert(FILE *f, void *cert) { return PEM_write_X509(f, (X509 *)cert); }

int ph_tls_make_self_signed(const char *cert_path, const char *key_path, const char *address, char *error, size_t error_length) {
    if (ph_load(error, error_length) != 0) return -1;
    int result = -1;
    X509 *cert = NULL;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (!key) { snprintf(error, error_length, "cannot make a P-256 key"); goto done; }
    cert = X509_new();
    if (!cert) { snprintf(error, error_length, "out of memory"); goto done; }
    X509_set_version(cert, 2);
    unsigned char serial[16];
    if (ph_random(serial, sizeof serial) != 0) { snprintf(error, error_length, "no random bytes"); goto done; }
    serial[0] &= 0x7f;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    if (bn) { BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)); BN_free(bn); }
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), 10L * 365 * 24 * 3600);
    X509_set_pubkey(cert, key);
    X509_NAME *name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"PlayerHost remote", -1, -1, 0);
    X509_set_issuer_name(cert, name);
    char san[128];
    snprintf(san, sizeof san, "IP:%s", address);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name, san);
    if (ext) { X509_add_ext(cert, ext, -1); X509_EXTENSION_free(ext); }
    if (!X509_sign(cert, key, EVP_sha256())) { snprintf(error, error_length, "cannot sign the certificate"); goto done; }
    if (write_private(key_path, write_key, key) != 0) { snprintf(error, error_length, "cannot write %s", key_path); goto done; }
    if (write_private(cert_path, write_cert, cert) != 0) { snprintf(error, error_length, "cannot write %s", cert_path); goto done; }
    result = 0;
done:
    X509_free(cert);
    EVP_PKEY_free(key);
    return result;
}

int ph_tls_fingerprint(const char *cert_path, char *hex, size_t hex_length) {
    if (ph_load(NULL, 0) != 0) return -1;
    int fd = open(cert_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "r");
    if (!f) { close(fd); return -1; }
    X509 *cert = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    if (!cert) return -1;
    unsigned char md[32];
    unsigned int n = 0;
    int ok = X509_digest(cert, EVP_sha256(), md, &n);
    X509_free(cert);
    if (!ok || n != 32 || hex_length < 32 * 3) return -1;
    for (unsigned i = 0; i < n; i++) snprintf(hex + i * 3, 4, i + 1 < n ? "%02X:" : "%02X", md[i]);
    return 0;
}
