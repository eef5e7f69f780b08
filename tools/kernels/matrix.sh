#!/bin/bash
# matrix.sh: make test-kernels.  Runs tests/kernels/subset.sh on the running
# kernel and, in QEMU (TCG), on Debian's 5.10 and 6.1 kernels for x86_64 and
# arm64; prints one line per kernel and fails if any kernel fails.
#   BUILD        the x86_64 tree (build)
#   ARM64_BUILD  the arm64 tree (build/arm64); none: the arm64 kernels are skipped
#   KERNEL_CACHE downloaded kernels, kept between runs (/var/cache/msprof-kernels)
#   KT_BOOT_S    the bound on one kernel's whole run, in seconds (300; a run
#                takes about 20 s: the bound keeps a hung kernel within CI's time)
#   KT_PYTHON    1 (the default): the arm64 images hold Debian 12's arm64
#                python3.11 (tools/pyroots.sh, kept in PYROOT_CACHE, default
#                /var/cache/msprof-pyroots) and the subset runs the Python
#                stack case on it; 0: left out
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
ARM64_BUILD=${ARM64_BUILD:-build/arm64}
KERNEL_CACHE=${KERNEL_CACHE:-/var/cache/msprof-kernels}
KT_BOOT_S=${KT_BOOT_S:-300}
KT_PYTHON=${KT_PYTHON:-1}
PYROOT_CACHE=${PYROOT_CACHE:-/var/cache/msprof-pyroots}
logs=$BUILD/kernels
mkdir -p "$logs"
results=()
failed=0

result() {	# result LINE: one kernel's line, kept for the summary
	echo "$1"
	results+=("$1")
	# A kernel skipped is a kernel the matrix did not test: it fails too.
	case $1 in *": FAIL"* | *": skip"*) failed=1 ;; esac
}

# subset_result LOG: the subset's verdict in LOG, else why there is none.
subset_result() {
	local r
	r=$(grep -a '^kt-result: ' "$1" | tail -1 | tr -d '\r')
	if [ -n "$r" ]; then
		echo "${r#kt-result: }"
	elif grep -aq 'Kernel panic' "$1"; then
		echo "FAIL (kernel panic: $(grep -a -m1 'Kernel panic' "$1" | tr -d '\r'))"
	elif grep -aq '^kt-kernel: ' "$1"; then
		echo "FAIL (no result from the subset; last line: $(grep -av -e '^\s*$' -e '^qemu-system' "$1" | tail -1 | tr -d '\r'))"
	else
		echo "FAIL (the kernel did not reach /init; see $1)"
	fi
}

# excerpt LOG: the subset's failed checks and msprof's last lines, bounded.
excerpt() {
	grep -a -e '^kt: FAIL' -e '^--- ' -A8 "$1" | tr -d '\r' | grep -av '^kt: ok' |
		head -60 | sed 's/^/    /'
}

t0=$SECONDS
if [ "$(id -u)" -ne 0 ]; then
	echo "test-kernels: BPF and the kernel cache need root" >&2
	exit 1
fi

# --- the running kernel, natively -------------------------------------------
s=$SECONDS
timeout -k 10 "$KT_BOOT_S" sh tests/kernels/subset.sh "$(cd "$BUILD" && pwd)" \
	>"$logs/native.log" 2>&1
rc=$?
r=$(subset_result "$logs/native.log")
case $rc in 124 | 137) r="FAIL (timed out after $KT_BOOT_S s)" ;; esac
result "kernel $(uname -r) $(uname -m) (native): $r [$((SECONDS - s)) s]"
[ "${r#ok}" = "$r" ] && excerpt "$logs/native.log"

# --- Debian kernels in QEMU ---------------------------------------------------
s=$SECONDS
fetched=$(tools/kernels/fetch.sh "$KERNEL_CACHE" 2>"$logs/fetch.err") ||
	result "kernels from $KERNEL_CACHE: FAIL ($(tail -1 "$logs/fetch.err"))"
echo "kernels fetched or found in $KERNEL_CACHE in $((SECONDS - s)) s"
[ -s "$logs/fetch.err" ] && sed 's/^/  /' "$logs/fetch.err"
bb_arm64=$(awk '$1 == "busybox" && $2 == "arm64" { print $3 }' <<<"$fetched")

# initramfs ARCH: builds it once per run; sets rd to its path, or says why
# not on stderr.  Not in a subshell, so that initrd keeps what was built.
declare -A initrd
initramfs() {
	local arch=$1 tree busybox out machine
	local pyroot=""
	case $arch in
	x86_64) tree=$BUILD busybox=/bin/busybox machine=X86-64 ;;
	aarch64) tree=$ARM64_BUILD busybox=$bb_arm64 machine=AArch64 ;;
	esac
	out=$logs/initramfs-$arch.cpio.gz
	if [ -z "${initrd[$arch]:-}" ]; then
		if ! readelf -h "$tree/bin/msprof" 2>/dev/null | grep -q "Machine:.*$machine"; then
			echo "no $arch build in $tree" >&2
			return 1
		fi
		[ -x "$busybox" ] || { echo "no $arch busybox" >&2; return 1; }
		if [ "$arch" = aarch64 ] && [ "$KT_PYTHON" = 1 ]; then
			# without it the subset says skip for its Python case
			pyroot=$(tools/pyroots.sh "$PYROOT_CACHE" bookworm-arm64 | awk '{ print $4 }') ||
				echo "no arm64 Python root: the Python case is left out" >&2
		fi
		tools/kernels/initramfs.sh "$arch" "$tree" "$busybox" "$out" ${pyroot:+"$pyroot"} >&2 || return 1
		initrd[$arch]=$out
	fi
	rd=${initrd[$arch]}
}

# boot ARCH VMLINUZ INITRD LOG: the VM, bounded; its console in LOG.
boot() {
	local arch=$1 kernel=$2 rd=$3 log=$4
	case $arch in
	x86_64)
		timeout -k 10 "$KT_BOOT_S" qemu-system-x86_64 -machine q35 -cpu max -smp 2 \
			-m 2G -nographic -no-reboot -kernel "$kernel" -initrd "$rd" \
			-append "console=ttyS0 panic=-1 quiet" </dev/null >"$log" 2>&1 ;;
	aarch64)
		# pauth-impdef: the architected pointer-auth algorithm is slow under TCG
		timeout -k 10 "$KT_BOOT_S" qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on \
			-smp 2 -m 2G -nographic -no-reboot -kernel "$kernel" -initrd "$rd" \
			-append "console=ttyAMA0 panic=-1 quiet" </dev/null >"$log" 2>&1 ;;
	esac
}

while read -r what deb_arch kver dir; do
	[ "$what" = kernel ] || continue
	arch=$([ "$deb_arch" = arm64 ] && echo aarch64 || echo x86_64)
	if ! command -v "qemu-system-$arch" >/dev/null; then
		result "kernel $kver $arch: skip (no qemu-system-$arch: run tools/install-deps.sh)"
		continue
	fi
	if ! initramfs "$arch" 2>"$logs/initramfs-$arch.err"; then
		result "kernel $kver $arch: skip ($(tail -1 "$logs/initramfs-$arch.err"))"
		continue
	fi
	kernel=$dir/boot/vmlinuz-$kver	# arm64: an Image, which QEMU loads gzipped or not
	log=$logs/$kver.log
	s=$SECONDS
	boot "$arch" "$kernel" "$rd" "$log"
	rc=$?
	r=$(subset_result "$log")
	case $rc in 124 | 137)
		[ "${r#ok}" = "$r" ] && r="FAIL (timed out after $KT_BOOT_S s; ${r#FAIL (}" ;;
	esac
	result "kernel $kver $arch: $r [$((SECONDS - s)) s]"
	# CI keeps only what is printed: the subset's own account of a failure
	[ "${r#ok}" = "$r" ] && excerpt "$log"
done <<<"$fetched"

echo
echo "kernel matrix ($((SECONDS - t0)) s, logs in $logs):"
printf '  %s\n' "${results[@]}"
exit $failed
