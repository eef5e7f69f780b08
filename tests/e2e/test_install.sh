#!/bin/bash
# make install: a tree under DESTDIR, built with a distribution's hardening
# flags, whose msprof finds its agent beside itself and profiles the
# installed sample from another directory with exact counts.
source tests/e2e/lib.sh

repo=$PWD
root=$WORK/root
# Debian's hardening flags, or the same by hand where dpkg is missing.
if command -v dpkg-buildflags >/dev/null; then
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all
	cppflags=$(dpkg-buildflags --get CPPFLAGS)
	cflags=$(dpkg-buildflags --get CFLAGS)
	ldflags=$(dpkg-buildflags --get LDFLAGS)
else
	cppflags="-D_FORTIFY_SOURCE=2"
	cflags="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security"
	ldflags="-Wl,-z,relro -Wl,-z,now"
fi
echo "CPPFLAGS=$cppflags CFLAGS=$cflags LDFLAGS=$ldflags"
make -j2 BUILD="$WORK/build" CPPFLAGS="$cppflags" CFLAGS="$cflags" \
	LDFLAGS="$ldflags" install DESTDIR="$root" PREFIX=/usr >"$WORK/make.log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -20 "$WORK/make.log"
check "make install DESTDIR=... PREFIX=/usr with hardening flags" [ $rc -eq 0 ]
for f in bin/msprof lib/msprof/libmsprof_agent.so lib/msprof/libnpusim.so \
	 lib/msprof/npu_sample share/man/man1/msprof.1; do
	check "installed /usr/$f" [ -s "$root/usr/$f" ]
done
check "LDFLAGS reached the link (BIND_NOW)" eval \
	'readelf -d "$root/usr/bin/msprof" | grep -q BIND_NOW'
check "CPPFLAGS reached the compiler (fortified calls)" eval \
	'nm -D "$root/usr/bin/msprof" | grep -q "__.*_chk"'
if command -v man >/dev/null; then
	check "the man page renders without warnings" eval \
		'[ -z "$(MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/msprof.1" 2>&1 >/dev/null)" ]'
else
	skip "the man page renders without warnings" "no man command: apt-get install man-db"
fi

MSPROF=$root/usr/bin/msprof
SAMPLE=$root/usr/lib/msprof/npu_sample
# The tree's top belongs to another user, as a checkout in a user's home
# would: it holds msprof too, so it is not held against the agent.
chown 65534 "$root"
mkdir "$WORK/elsewhere"
cd "$WORK/elsewhere" || exit 1
check "--version says the VERSION file's" [ "$("$MSPROF" --version)" = "msprof $(cat "$repo/VERSION")" ]

# Launch mode on the installed sample, a window holding all of its steps.
STEPS=23
msprof_open "$WORK/msprof.log" --dynamic=on --output=out "$SAMPLE" \
	--steps $STEPS --step-ms 0 --wait-signal
wait_for "$WORK/msprof.log" "attached to pid"
app=$(sed -n 's/^npu_sample pid=//p' "$WORK/msprof.log")
PIDS_TO_KILL+=("$app")
check "the app mapped the installed agent" \
	grep -q " $root/usr/lib/msprof/libmsprof_agent.so$" "/proc/$app/maps"
say start
wait_for "$WORK/msprof.log" "collection started"
kill -USR1 "$app"
check "the app runs its steps and ends" gone "$app" 30
msprof_close
check "msprof leaves with the app, status 0" [ $? -eq 0 ]
show "$WORK/msprof.log" | grep -Ev '(^|\) )calls '
d=$(prof_dirs out)
check "one PROF_ directory, in the current directory" [ "$(prof_dirs out | wc -l)" -eq 1 ]
"$MSPROF" --export=on --output="$d" >"$WORK/export.log" 2>&1
check "the installed msprof exports it" [ $? -eq 0 ]
check_exact_counts "$d" "$WORK/msprof.log" $STEPS

# MSPROF_AGENT: another copy is preloaded instead.
mkdir "$WORK/alt"
cp "$root/usr/lib/msprof/libmsprof_agent.so" "$WORK/alt/"
MSPROF_AGENT=$WORK/alt/libmsprof_agent.so msprof_open "$WORK/alt.log" \
	--dynamic=on --output=out "$SAMPLE" --steps 0 --step-ms 10
wait_for "$WORK/alt.log" "attached to pid"
app=$(sed -n 's/^npu_sample pid=//p' "$WORK/alt.log")
PIDS_TO_KILL+=("$app")
check "MSPROF_AGENT's copy is the one the app maps" eval \
	'grep -q " $WORK/alt/libmsprof_agent.so$" "/proc/$app/maps" &&
	 ! grep -q " $root/usr/lib/msprof/libmsprof_agent.so$" "/proc/$app/maps"'
say quit
wait_for "$WORK/alt.log" "waiting for"
kill -TERM "$app"
msprof_close

# agent_refused WHAT TEXT: launch mode refuses in one line naming TEXT and
# never starts the app.
agent_refused() {
	rm -f "$WORK/started"
	"$MSPROF" --dynamic=on --output=out /bin/sh -c "touch $WORK/started" \
		>"$WORK/refused.log" 2>&1
	local rc=$? text=$2
	cat "$WORK/refused.log"
	check "$1: exit 1" [ $rc -eq 1 ]
	check "$1: one line naming it" eval \
		'[ "$(wc -l <"$WORK/refused.log")" -eq 1 ] && grep -qF -- "$text" "$WORK/refused.log"'
	check "$1: the app was not started" [ ! -e "$WORK/started" ]
}
MSPROF_AGENT=$WORK/none.so agent_refused "MSPROF_AGENT missing" \
	"no profiling agent at $WORK/none.so (from MSPROF_AGENT)"
chmod 666 "$WORK/alt/libmsprof_agent.so"
MSPROF_AGENT=$WORK/alt/libmsprof_agent.so agent_refused "an agent others can write" \
	"into the app: $WORK/alt/libmsprof_agent.so can be changed by a user other than root"
chmod 644 "$WORK/alt/libmsprof_agent.so"
chmod 777 "$WORK/alt"
MSPROF_AGENT=$WORK/alt/libmsprof_agent.so agent_refused "an agent in a directory others can write" \
	"into the app: $WORK/alt can be changed by a user other than root"
mv "$root/usr/lib/msprof/libmsprof_agent.so" "$WORK/moved.so"
agent_refused "installed agent missing" \
	"no profiling agent at $root/usr/lib/msprof/libmsprof_agent.so (from msprof's install)"
mv "$WORK/moved.so" "$root/usr/lib/msprof/libmsprof_agent.so"

cd "$repo" || exit 1
# Another layout and name, without the sample: the agent is still found.
other=$WORK/other
make BUILD="$WORK/build" CPPFLAGS="$cppflags" CFLAGS="$cflags" LDFLAGS="$ldflags" \
	install DESTDIR="$other" PREFIX=/opt/m BINDIR=/opt/m/sbin LIBDIR=/opt/m/lib64 \
	PROGRAM=msprof-ebpf INSTALL_SAMPLE=0 >"$WORK/make.log" 2>&1
check "make install PROGRAM=msprof-ebpf INSTALL_SAMPLE=0 with its own BINDIR, LIBDIR" [ $? -eq 0 ]
check "installed as sbin/msprof-ebpf, man1/msprof-ebpf.1, no sample" eval \
	'[ -x "$other/opt/m/sbin/msprof-ebpf" ] && [ -s "$other/opt/m/share/man/man1/msprof-ebpf.1" ] &&
	 [ "$(ls "$other/opt/m/lib64/msprof")" = libmsprof_agent.so ]'
MSPROF_LAUNCH_WAIT_S=1 "$other/opt/m/sbin/msprof-ebpf" --dynamic=on /bin/true >"$WORK/other.log" 2>&1
check "it finds its agent in lib64/msprof and launches" grep -q "exited before any profiling agent" "$WORK/other.log"

make BUILD="$WORK/build" uninstall DESTDIR="$root" PREFIX=/usr >"$WORK/make.log" 2>&1
check "make uninstall succeeds" [ $? -eq 0 ]
check "and leaves no file, nor LIBDIR/msprof" eval \
	'[ -z "$(find "$root" ! -type d)" ] && [ ! -e "$root/usr/lib/msprof" ]'
