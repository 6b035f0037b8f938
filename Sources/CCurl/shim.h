#ifndef PLAYERHOST_CCURL_SHIM_H
#define PLAYERHOST_CCURL_SHIM_H
// libcurl for Swift. Only the artwork helper (Sources/playerhost-artwork) imports this module: the
// daemon fetches nothing itself, so no body an HTTP server sends is ever in its memory.
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

/// Called with each connection's address before a request is sent on it (every hop of a
/// redirect chain); returning non-zero aborts the transfer (CURLE_ABORTED_BY_CALLBACK).
typedef int (*ph_curl_prereq_fn)(void *user, char *primary_ip, char *local_ip, int primary_port, int local_port);
static inline CURLcode ph_curl_easy_set_prereq(CURL *e, ph_curl_prereq_fn f, void *user) {
    CURLcode r = curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, f);
    return r != CURLE_OK ? r : curl_easy_setopt(e, CURLOPT_PREREQDATA, user);
}

static inline long ph_curl_easy_response_code(CURL *e) {
    long code = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

#endif
