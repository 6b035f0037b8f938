#ifndef PLAYERHOST_CSDBUS_H
#define PLAYERHOST_CSDBUS_H
// sd-bus for Swift. Only Sources/PlayerHost/Loop imports this module.
//
// sd-bus's vtables are built with SD_BUS_* macros, which Swift cannot import, and its message
// builders are variadic. This target holds the MPRIS2 vtables (typed exactly as the freedesktop
// spec's XML types them) and routes every property read, property write and method call to three
// function pointers the Swift side fills in. Everything else (append_basic, read_basic,
// open_container, emit_properties_changed_strv, …) is plain C and is called from Swift.
#include <stdint.h>
#include <systemd/sd-bus.h>

/// Which exported interface a callback is about.
enum {
    PH_MPRIS_ROOT = 0,   // org.mpris.MediaPlayer2
    PH_MPRIS_PLAYER = 1, // org.mpris.MediaPlayer2.Player
};

/// The Swift side of an exported MPRIS object. `context` is handed back to every callback.
/// Each callback returns >= 0 on success, or a negative errno with `error` set (sd_bus_error_set).
typedef struct ph_mpris_handlers {
    void *context;
    /// Appends the value of `property` (its spec type) to `reply`.
    int (*get)(void *context, int interface, const char *property, sd_bus_message *reply, sd_bus_error *error);
    /// Reads the new value of `property` from `value` (already positioned inside the variant).
    int (*set)(void *context, int interface, const char *property, sd_bus_message *value, sd_bus_error *error);
    /// Reads the arguments of method `member` from `message`; the empty reply is sent for it.
    int (*call)(void *context, int interface, const char *member, sd_bus_message *message, sd_bus_error *error);
} ph_mpris_handlers;

/// Adds both MPRIS interfaces at `path` (floating slots: they live as long as the bus).
/// `handlers` must outlive the bus.
int ph_mpris_add_object(sd_bus *bus, const char *path, ph_mpris_handlers *handlers);

/// Emits org.mpris.MediaPlayer2.Player.Seeked(x Position) from `path`.
int ph_mpris_emit_seeked(sd_bus *bus, const char *path, int64_t position);

/// The interface name of PH_MPRIS_ROOT / PH_MPRIS_PLAYER.
const char *ph_mpris_interface_name(int interface);

#endif
