#ifndef PLAYERHOST_CARTWORK_SHIM_H
#define PLAYERHOST_CARTWORK_SHIM_H
// libvips and libavformat for the artwork helper (playerhost-artwork) only: the daemon never
// links them, so untrusted images and media files are parsed in the helper process alone.
//
// libvips' API is variadic (NULL-terminated option lists), which Swift cannot call; these
// wrappers fix the options and expose plain C types.
#include <vips/vips.h>
#include <libavformat/avformat.h>
#include <libavutil/log.h>
#include <stdlib.h>
#include <string.h>

/// libvips' warnings (a damaged tile…) would go to the daemon's log: the error that matters comes
/// back in the reply instead.
static inline void pha_quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user) {
    (void)domain; (void)level; (void)message; (void)user;
}

/// Starts libvips once: one worker thread, no operation cache (the helper answers one request at a
/// time and must not grow), and only the loaders fit for untrusted input.
static inline int pha_init(const char *argv0) {
    if (VIPS_INIT(argv0)) return -1;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_block_untrusted_set(TRUE);
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE), pha_quiet_log, NULL);
    av_log_set_level(AV_LOG_QUIET);
    return 0;
}

/// The last libvips error, cleared.
static inline void pha_error(char *out, size_t cap) {
    const char *e = vips_error_buffer();
    snprintf(out, cap, "%s", (e && *e) ? e : "unknown error");
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' ')) out[--n] = 0;
    vips_error_clear();
}

/// The MIME type of a libvips loader nickname ("jpegload_buffer" → "image/jpeg"), or NULL for
/// loaders the helper does not accept.
static inline const char *pha_mime(const char *loader) {
    if (!loader) return NULL;
    if (!strncmp(loader, "jpegload", 8)) return "image/jpeg";
    if (!strncmp(loader, "pngload", 7)) return "image/png";
    if (!strncmp(loader, "webpload", 8)) return "image/webp";
    if (!strncmp(loader, "gifload", 7)) return "image/gif";
    return NULL;
}

/// Refuses an image whose header declares more than `max_pixels` pixels (a decompression bomb: a
/// few hundred bytes can declare 65500×65500). Only the header has been read when this runs:
/// libvips loads lazily, so nothing is decoded before the check. 0 when within the bound.
static inline int pha_check_pixels(VipsImage *img, unsigned long long max_pixels, char *err, size_t errcap) {
    int w = vips_image_get_width(img), h = vips_image_get_height(img);
    unsigned long long pixels = (unsigned long long)(w > 0 ? w : 0) * (unsigned long long)(h > 0 ? h : 0);
    if (w <= 0 || h <= 0 || pixels > max_pixels) {
        snprintf(err, errcap, "the image declares %dx%d pixels, over the %llu-pixel limit", w, h, max_pixels);
        return -1;
    }
    return 0;
}

/// Checks `buf`'s header against the pixel bound, then decodes every pixel (a truncated or
/// corrupt image fails: the header alone is not trusted) and reports its size and MIME type.
/// 0 on success, else -1 with `err` set.
static inline int pha_probe(const void *buf, size_t len, unsigned long long max_pixels, int *width, int *height,
                            const char **mime, char *err, size_t errcap) {
    const char *cls = vips_foreign_find_load_buffer(buf, len);
    if (!cls) { snprintf(err, errcap, "not an image"); vips_error_clear(); return -1; }
    VipsImage *img = vips_image_new_from_buffer(buf, len, "", "fail_on", VIPS_FAIL_ON_TRUNCATED,
                                                "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!img) { pha_error(err, errcap); return -1; }
    if (pha_check_pixels(img, max_pixels, err, errcap) != 0) { g_object_unref(img); return -1; }
    const char *loader = NULL;
    if (vips_image_get_string(img, "vips-loader", &loader) != 0) loader = NULL;
    *mime = pha_mime(loader);
    if (!*mime) {
        snprintf(err, errcap, "unsupported image format (%s)", loader ? loader : "unknown");
        g_object_unref(img);
        vips_error_clear();
        return -1;
    }
    *width = vips_image_get_width(img);
    *height = vips_image_get_height(img);
    // A JPEG is decoded at 1/8 scale: libjpeg still reads and entropy-decodes every block (so a
    // truncated or corrupt file fails just the same) but skips most of the pixel work.
    if (!strcmp(*mime, "image/jpeg")) {
        g_object_unref(img);
        img = vips_image_new_from_buffer(buf, len, "", "shrink", 8, "fail_on", VIPS_FAIL_ON_TRUNCATED,
                                         "access", VIPS_ACCESS_SEQUENTIAL, NULL);
        if (!img) { pha_error(err, errcap); return -1; }
    }
    double avg = 0;
    int r = vips_avg(img, &avg, NULL);  // forces the decode of every pixel (block)
    g_object_unref(img);
    if (r != 0) { pha_error(err, errcap); return -1; }
    return 0;
}

/// Scales `buf` down to fit `width`×`height` (never up) and saves it to `path` as JPEG (or PNG
/// when `png` is non-zero, which keeps transparency). Reports the rendition's size.
static inline int pha_thumbnail(const void *buf, size_t len, unsigned long long max_pixels, int width, int height,
                                int png, const char *path, int *outw, int *outh, char *err, size_t errcap) {
    // The header first (nothing decoded yet): a file that got into the cache before the bound
    // existed, or under a larger one, is refused here too.
    VipsImage *header = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!header) { pha_error(err, errcap); return -1; }
    int over = pha_check_pixels(header, max_pixels, err, errcap);
    g_object_unref(header);
    if (over != 0) return -1;
    VipsImage *out = NULL;
    if (vips_thumbnail_buffer((void *)buf, len, &out, width, "height", height, "size", VIPS_SIZE_DOWN,
                              "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL) != 0) {
        pha_error(err, errcap);
        return -1;
    }
    int r = png ? vips_pngsave(out, path, "strip", TRUE, NULL)
                : vips_jpegsave(out, path, "Q", 85, "strip", TRUE, NULL);
    *outw = vips_image_get_width(out);
    *outh = vips_image_get_height(out);
    g_object_unref(out);
    if (r != 0) { pha_error(err, errcap); return -1; }
    return 0;
}

/// The attached picture (cover art) of the media file at `path`, copied into a malloc'ed buffer
/// the caller frees. 1 found, 0 none, -1 the file could not be read or its picture is larger
/// than `max_bytes` (`err` set).
static inline int pha_attached_picture(const char *path, size_t max_bytes, unsigned char **data, size_t *len,
                                       char *err, size_t errcap) {
    AVFormatContext *ctx = NULL;
    int r = avformat_open_input(&ctx, path, NULL, NULL);
    if (r < 0) {
        char msg[128];
        av_strerror(r, msg, sizeof msg);
        snprintf(err, errcap, "cannot read media file: %s", msg);
        return -1;
    }
    int found = 0;
    for (unsigned i = 0; i < ctx->nb_streams; i++) {
        AVStream *st = ctx->streams[i];
        if ((st->disposition & AV_DISPOSITION_ATTACHED_PIC) && st->attached_pic.size > 0) {
            if ((size_t)st->attached_pic.size > max_bytes) {
                snprintf(err, errcap, "the attached picture is larger than the %zu-byte limit", max_bytes);
                found = -1;
                break;
            }
            *data = malloc((size_t)st->attached_pic.size);
            if (!*data) break;
            memcpy(*data, st->attached_pic.data, (size_t)st->attached_pic.size);
            *len = (size_t)st->attached_pic.size;
            found = 1;
            break;
        }
    }
    avformat_close_input(&ctx);
    return found;
}

#endif
