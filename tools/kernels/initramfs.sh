#!/bin/bash
# initramfs.sh ARCH TREE BUSYBOX OUT [PYROOT]: a gzipped newc initramfs for
# the kernel matrix: BUSYBOX, the built TREE (bin/msprof, bin/npu_sample,
# lib/*.so) under /msprof with the subset script, every shared library they
# need (found through readelf's NEEDED entries in ARCH's multiarch
# directories, so a cross-built arm64 tree works without running it) and an
# /init that mounts what BPF needs, runs the subset and powers off.  PYROOT,
# a Debian Python root of ARCH's (tools/pyroots.sh), goes to /py, with the
# Python stack test's program and checker and TREE's npusim in /py/t, for
# the subset's Python case.
set -euo pipefail
arch=$1 tree=$2 busybox=$3 out=$4 pyroot=${5:-}
case $arch in
x86_64) libdirs="/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu" ;;
aarch64) libdirs="/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu" ;;
*) echo "initramfs: no library directories for $arch" >&2; exit 1 ;;
esac
root=$out.d
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,run,etc,msprof/bin,msprof/lib}
cp "$busybox" "$root/bin/busybox"
cp "$tree"/bin/msprof "$tree"/bin/npu_sample "$root/msprof/bin/"
cp "$tree"/lib/*.so "$root/msprof/lib/"
cp "$(dirname "$0")/../../tests/kernels/subset.sh" "$root/msprof/subset.sh"
if [ -n "$pyroot" ]; then
	cp -a "$pyroot" "$root/py"
	mkdir -p "$root/py/t/lib"
	cp "$(dirname "$0")/../../tests/programs/pystack_cases.py" \
		"$(dirname "$0")/../../tests/e2e/check_pystack.py" "$root/py/t/"
	cp "$tree/lib/libnpusim.so" "$tree/lib/libmsprof_agent.so" "$root/py/t/lib/"
fi
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"

# add_lib NAME: NAME from the library directories, with what it needs.
add_lib() {
	local d
	for d in $libdirs; do
		[ -e "$d/$1" ] || continue
		[ -e "$root$d/$1" ] && return 0
		mkdir -p "$root$d"
		cp -L "$d/$1" "$root$d/$1"
		add_needed "$d/$1"
		return 0
	done
	echo "initramfs: $1 not found in $libdirs" >&2
	return 1
}

# add_needed ELF: the libraries ELF names as NEEDED and its interpreter.
add_needed() {
	local lib interp
	for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		# the tree's own libraries come with it (rpath $ORIGIN)
		[ -e "$tree/lib/$lib" ] && continue
		add_lib "$lib"
	done
	interp=$(readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		mkdir -p "$root$(dirname "$interp")"
		cp -L "$interp" "$root$interp"
	fi
}

for f in "$root"/msprof/bin/* "$root"/msprof/lib/*.so; do
	add_needed "$f"
done

cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t bpf bpf /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "kt-kernel: $(uname -r) $(uname -m)"
sh /msprof/subset.sh /msprof
echo "kt-exit: $?"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$root"
