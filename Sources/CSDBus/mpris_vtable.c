// The MPRIS2 vtables (freedesktop mpris-spec 2.2, spec/org.mpris.MediaPlayer2*.xml). Each
// callback forwards to the Swift handlers passed as the vtable's userdata.
#include "csdbus.h"
#include <string.h>

#define ROOT_IFACE "org.mpris.MediaPlayer2"
#define PLAYER_IFACE "org.mpris.MediaPlayer2.Player"

const char *ph_mpris_interface_name(int interface) {
    return interface == PH_MPRIS_PLAYER ? PLAYER_IFACE : ROOT_IFACE;
}

static int iface_of(const char *name) {
    return (name && strcmp(name, PLAYER_IFACE) == 0) ? PH_MPRIS_PLAYER : PH_MPRIS_ROOT;
}

static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path;
    ph_mpris_handlers *h = userdata;
    return h->get(h->context, iface_of(interface), property, reply, error);
}

static int set_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path;
    ph_mpris_handlers *h = userdata;
    return h->set(h->context, iface_of(interface), property, value, error);
}

static int call_method(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    ph_mpris_handlers *h = userdata;
    int r = h->call(h->context, iface_of(sd_bus_message_get_interface(m)), sd_bus_message_get_member(m), m, error);
    if (r < 0) return r;
    return sd_bus_reply_method_return(m, NULL);
}

#define UNPRIV SD_BUS_VTABLE_UNPRIVILEGED
#define CHANGES SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CONST SD_BUS_VTABLE_PROPERTY_CONST

static const sd_bus_vtable root_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Raise", "", "", call_method, UNPRIV),
    SD_BUS_METHOD("Quit", "", "", call_method, UNPRIV),
    SD_BUS_PROPERTY("CanQuit", "b", get_property, 0, CONST),
    SD_BUS_PROPERTY("CanRaise", "b", get_property, 0, CONST),
    SD_BUS_PROPERTY("HasTrackList", "b", get_property, 0, CONST),
    SD_BUS_PROPERTY("Identity", "s", get_property, 0, CONST),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", get_property, 0, CHANGES),
    SD_BUS_VTABLE_END
};

static const sd_bus_vtable player_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Next", "", "", call_method, UNPRIV),
    SD_BUS_METHOD("Previous", "", "", call_method, UNPRIV),
    SD_BUS_METHOD("Pause", "", "", call_method, UNPRIV),
    SD_BUS_METHOD("PlayPause", "", "", call_method, UNPRIV),
    SD_BUS_METHOD("Stop", "", "", call_method, UNPRIV),
    SD_BUS_METHOD("Play", "", "", call_method, UNPRIV),
    SD_BUS_METHOD_WITH_NAMES("Seek", "x", SD_BUS_PARAM(Offset), "", , call_method, UNPRIV),
    SD_BUS_METHOD_WITH_NAMES("SetPosition", "ox", SD_BUS_PARAM(TrackId) SD_BUS_PARAM(Position), "", ,
                             call_method, UNPRIV),
    SD_BUS_METHOD_WITH_NAMES("OpenUri", "s", SD_BUS_PARAM(Uri), "", , call_method, UNPRIV),
    SD_BUS_SIGNAL_WITH_NAMES("Seeked", "x", SD_BUS_PARAM(Position), 0),
    SD_BUS_PROPERTY("PlaybackStatus", "s", get_property, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("LoopStatus", "s", get_property, set_property, 0, CHANGES | UNPRIV),
    SD_BUS_WRITABLE_PROPERTY("Rate", "d", get_property, set_property, 0, CHANGES | UNPRIV),
    SD_BUS_WRITABLE_PROPERTY("Shuffle", "b", get_property, set_property, 0, CHANGES | UNPRIV),
    SD_BUS_PROPERTY("Metadata", "a{sv}", get_property, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Volume", "d", get_property, set_property, 0, CHANGES | UNPRIV),
    // Position changes continuously: readers ask for it, it is never signalled (the spec's
    // EmitsChangedSignal=false; Seeked reports jumps).
    SD_BUS_PROPERTY("Position", "x", get_property, 0, 0),
    SD_BUS_PROPERTY("MinimumRate", "d", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("MaximumRate", "d", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanGoNext", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanGoPrevious", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanPlay", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanPause", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanSeek", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("CanControl", "b", get_property, 0, CONST),
    SD_BUS_VTABLE_END
};

int ph_mpris_add_object(sd_bus *bus, const char *path, ph_mpris_handlers *handlers) {
    int r = sd_bus_add_object_vtable(bus, NULL, path, ROOT_IFACE, root_vtable, handlers);
    if (r < 0) return r;
    return sd_bus_add_object_vtable(bus, NULL, path, PLAYER_IFACE, player_vtable, handlers);
}

int ph_mpris_emit_seeked(sd_bus *bus, const char *path, int64_t position) {
    return sd_bus_emit_signal(bus, path, PLAYER_IFACE, "Seeked", "x", position);
}
