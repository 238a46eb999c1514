cstap.loopback=up
