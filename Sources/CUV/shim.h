#ifndef PLAYERHOST_CUV_SHIM_H
#define PLAYERHOST_CUV_SHIM_H
// libuv for Swift. Only Sources/PlayerHost/Loop imports this module.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <uv.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/// The uid of the peer of a connected Unix socket (SO_PEERCRED), or -1 with errno set.
static inline int ph_peer_uid(int fd, uid_t *uid, pid_t *pid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    if (uid) *uid = cred.uid;
    if (pid) *pid = cred.pid;
    return 0;
}

#endif
