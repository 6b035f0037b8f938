// A narrow C face of libwebsockets for the web remote (Sources/PlayerHost/Loop/WebServer.swift):
// one server on the daemon's own libuv loop (a foreign loop), its callbacks turned into a table of
// plain function pointers, and the few calls Swift makes on a connection. Only Loop/ imports it.
// libwebsockets and OpenSSL are not linked: ph_ws.c loads them on the first call that needs them
// (a server, a certificate, a hash), so a daemon without the remote never maps them.
#ifndef PH_WS_H
#define PH_WS_H

#include <stddef.h>
#include <stdint.h>

struct lws;
typedef struct ph_ws_server ph_ws_server;

/// What the server calls back, on the loop's thread. `user` is passed back untouched.
typedef struct ph_ws_callbacks {
    void *user;
    /// A TCP connection was accepted from `peer` (its numeric address, as `ph_ws_peer` gives it):
    /// nonzero closes it at once (the connection caps, in all and per address).
    int (*accept)(void *user, const char *peer);
    /// A connection object was made / is being freed (counts connections).
    void (*created)(void *user, struct lws *wsi);
    void (*destroyed)(void *user, struct lws *wsi);
    /// An HTTP request for `path` (its headers complete). Answer with `ph_ws_http_respond`, now or
    /// later; nonzero closes the connection.
    int (*http)(void *user, struct lws *wsi, const char *path);
    /// A WebSocket upgrade: nonzero refuses it.
    int (*ws_filter)(void *user, struct lws *wsi);
    void (*ws_open)(void *user, struct lws *wsi);
    /// A piece of a message: nonzero closes the socket.
    int (*ws_receive)(void *user, struct lws *wsi, const void *data, size_t len, int first, int final, int binary);
    /// The socket can take a write: nonzero closes it.
    int (*ws_writable)(void *user, struct lws *wsi);
    void (*ws_closed)(void *user, struct lws *wsi);
} ph_ws_callbacks;

/// The server's bounds.
typedef struct ph_ws_options {
    const char *interface_address;   /* "127.0.0.1" */
    int port;                        /* 0: any free port */
    int header_timeout_seconds;      /* a request's headers must be complete within this */
    int idle_timeout_seconds;        /* lws' own timeouts */
    const char *cert_path;           /* TLS when both set */
    const char *key_path;
} ph_ws_options;

/// Makes the server on `uv_loop` (a `uv_loop_t *`). NULL on failure, with why in `error`.
ph_ws_server *ph_ws_create(void *uv_loop, const ph_ws_options *options, const ph_ws_callbacks *callbacks,
                           char *error, size_t error_length);
/// The port it listens on.
int ph_ws_port(ph_ws_server *server);
/// Starts destroying the server: its libuv handles close on the loop's next turns; `done` is
/// called once everything is freed (then the `ph_ws_server` memory is gone too).
void ph_ws_destroy(ph_ws_server *server, void (*done)(void *user), void *user);

/// How many of lws' own libuv handles of this server are still open or closing (after
/// `ph_ws_destroy`: 0 once lws is done with the loop, and `ph_ws_finish_destroy` may run).
int ph_ws_closing_handles(ph_ws_server *server, void *uv_loop);
/// The second half of the destroy (lws' second `lws_context_destroy`): the protocols' destroy,
/// `done`, and the context freed.
void ph_ws_finish_destroy(ph_ws_server *server);
/// True once the context is wholly freed (after `done`); then `ph_ws_free` may free the server.
int ph_ws_is_gone(ph_ws_server *server);
/// Frees what `ph_ws_create` allocated, once `ph_ws_is_gone`.
void ph_ws_free(ph_ws_server *server);

/// A request header: 0 Cookie, 1 Origin, 2 Host, 3 User-Agent, 4 If-None-Match, 5 the GET path. Returns its length, or -1 when absent.
int ph_ws_header(struct lws *wsi, int which, char *buffer, int length);
/// A query argument's value (`size` in `?size=96`), or -1 when absent.
int ph_ws_query(struct lws *wsi, const char *name, char *buffer, int length);
/// The peer's address as text ("127.0.0.1"), or -1.
int ph_ws_peer(struct lws *wsi, char *buffer, int length);
/// Queues an HTTP response (status, content type, `header_count` extra headers as name/value
/// pairs, names ending in ':'); it goes out when the socket is writable. Copies everything.
int ph_ws_http_respond(struct lws *wsi, int status, const char *content_type,
                       const char *const *header_names, const char *const *header_values, int header_count,
                       const void *body, size_t length);
/// The room lws needs before a message's bytes (LWS_PRE) for its frame header.
size_t ph_ws_pre(void);
/// Sends one whole text message from `payload`, which has `ph_ws_pre()` writable bytes before it
/// (lws puts the frame header there): no copy, so one encoded message can go to every page.
int ph_ws_send_shared(struct lws *wsi, unsigned char *payload, size_t length);
/// Asks for a `ws_writable` callback.
void ph_ws_request_writable(struct lws *wsi);
/// Arms (seconds > 0) or clears (0) the connection's deadline: past it lws closes the socket.
void ph_ws_set_deadline(struct lws *wsi, int seconds);
/// Makes lws look at its timers now (after deadlines were set outside its callbacks).
void ph_ws_wake(ph_ws_server *server);
/// Closes the connection on the loop's next turn.
void ph_ws_kill(struct lws *wsi);
/// SHA-256 of `length` bytes into `out` (32 bytes): tokens are kept hashed at rest. 0, or -1 when
/// libcrypto could not be loaded (`out` untouched).
int ph_sha256(const void *data, size_t length, unsigned char *out);

/// Fills `out` from the kernel's random source: 0, or -1 on failure.
int ph_random(void *out, size_t length);

/// Makes a self-signed certificate (P-256, SAN IP:`address`, 10 years) and its key, both 0600.
/// Blocking: run it off the loop. 0, or -1 with why in `error`.
int ph_tls_make_self_signed(const char *cert_path, const char *key_path, const char *address, char *error, size_t error_length);
/// The SHA-256 fingerprint of a PEM certificate as `AB:CD:…` (95 characters + NUL), or -1.
int ph_tls_fingerprint(const char *cert_path, char *hex, size_t hex_length);

#endif
