# The QEMU guest runner (stap --remote=qemu, stap-vm).
REMOTE_SOURCES = translator/remote_qemu.c translator/remote_qemu.h
