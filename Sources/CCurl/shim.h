#ifndef PLAYERHOST_CCURL_SHIM_H
#define PLAYERHOST_CCURL_SHIM_H
// libcurl for Swift. Only Sources/PlayerHost/Loop/CurlMulti.swift imports this module.
//
// curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic macros/functions, which
// Swift cannot call: these wrappers fix each one to a single argument type.
#include <curl/curl.h>

static inline CURLcode ph_curl_easy_setopt_long(CURL *e, CURLoption o, long v) { return curl_easy_setopt(e, o, v); }
static inline CURLcode ph_curl_easy_setopt_off(CURL *e, CURLoption o, curl_off_t v) { return curl_easy_setopt(e, o, v); }
static inline CURLcode ph_curl_easy_setopt_ptr(CURL *e, CURLoption o, void *v) { return curl_easy_setopt(e, o, v); }
static inline CURLcode ph_curl_easy_setopt_str(CURL *e, CURLoption o, const char *v) { return curl_easy_setopt(e, o, v); }

typedef size_t (*ph_curl_write_fn)(char *data, size_t size, size_t count, void *user);
static inline CURLcode ph_curl_easy_set_write(CURL *e, ph_curl_write_fn f, void *user) {
    CURLcode r = curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, f);
    return r != CURLE_OK ? r : curl_easy_setopt(e, CURLOPT_WRITEDATA, user);
}

static inline long ph_curl_easy_response_code(CURL *e) {
    long code = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

static inline void *ph_curl_easy_private(CURL *e) {
    char *p = NULL;
    curl_easy_getinfo(e, CURLINFO_PRIVATE, &p);
    return p;
}

typedef int (*ph_curl_socket_fn)(CURL *e, curl_socket_t s, int what, void *user, void *socketp);
typedef int (*ph_curl_timer_fn)(CURLM *m, long timeout_ms, void *user);
static inline CURLMcode ph_curl_multi_set_callbacks(CURLM *m, ph_curl_socket_fn sock, ph_curl_timer_fn timer, void *user) {
    CURLMcode r = curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, sock);
    if (r == CURLM_OK) r = curl_multi_setopt(m, CURLMOPT_SOCKETDATA, user);
    if (r == CURLM_OK) r = curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, timer);
    if (r == CURLM_OK) r = curl_multi_setopt(m, CURLMOPT_TIMERDATA, user);
    return r;
}

/// The transfer a finished-message is about and its result, or NULL when none is left.
static inline CURL *ph_curl_multi_next_done(CURLM *m, CURLcode *result) {
    int left = 0;
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(m, &left)) != NULL) {
        if (msg->msg == CURLMSG_DONE) {
            *result = msg->data.result;
            return msg->easy_handle;
        }
    }
    return NULL;
}

#endif
