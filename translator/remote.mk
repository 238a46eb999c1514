# The QEMU guest runner (stap --remote=qemu, stap-vm): entry points and
# config, the guest's /init, the initramfs (cpio, cache), one boot (qemu,
# channels, signals, verdict).
REMOTE_SOURCES = translator/remote_qemu.c translator/remote_qemu.h translator/remote_priv.h \
	translator/remote_guest.c translator/remote_modules.c translator/remote_cpio.c translator/remote_boot.c
