// Package loopback holds the one rule of what names this machine only:
// "localhost" and the loopback IP addresses (127.0.0.0/8, ::1). The HTTP
// proxy serves a request that came in on loopback only when its Host and
// Origin name this machine (the defence against DNS rebinding), and the
// command warns when --listen is not on loopback: both ask this package,
// so that they cannot disagree.
package loopback
