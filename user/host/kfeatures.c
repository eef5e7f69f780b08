// SPDX-License-Identifier: MIT
/*
 * What the running kernel can do, asked once before loading: a missing
 * requirement is named in one line rather than found as a verifier error,
 * and missing extras are done without.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kfeatures.h"
#include "uprobe_multi.h"

bool kfeatures_release_ok(const char *release)
{
	unsigned int major, minor;

	/* An unusual name says nothing: the probes below still decide. */
	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return true;
	return major > KFEATURES_MIN_MAJOR ||
	       (major == KFEATURES_MIN_MAJOR && minor >= KFEATURES_MIN_MINOR);
}

/* 1: present, 0: absent, -errno: could not tell. */
static int has_helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, id, NULL);
}

/*
 * MSPROF_TEST_WITHOUT=cookies,uprobe_multi: the tests take the older
 * kernels' paths on a new kernel.  It can only take features away.
 */
static bool test_without(const char *feature)
{
	const char *v = getenv("MSPROF_TEST_WITHOUT");
	size_t n = strlen(feature);

	for (; v && *v; v += strcspn(v, ","), v += *v == ',')
		if (!strncmp(v, feature, n) && (v[n] == ',' || !v[n]))
			return true;
	return false;
}

struct requirement {
	const char *what;
	const char *since;	/* the kernel, or the config option, that has it */
	int (*present)(void);
};

static int has_btf(void)
{
	return !access("/sys/kernel/btf/vmlinux", R_OK);
}

static int has_uprobes(void)
{
	return !access("/sys/bus/event_source/devices/uprobe/type", R_OK);
}

static int has_ringbuf(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
}

static int has_ns_ids(void)
{
	return has_helper(BPF_FUNC_get_ns_current_pid_tgid);
}

static const struct requirement requirements[] = {
	{ "BTF type information (/sys/kernel/btf/vmlinux)",
	  "CONFIG_DEBUG_INFO_BTF=y", has_btf },
	{ "uprobes", "CONFIG_UPROBE_EVENTS=y", has_uprobes },
	{ "BPF ring buffers", "Linux 5.8", has_ringbuf },
	{ "bpf_get_ns_current_pid_tgid()", "Linux 5.7", has_ns_ids },
};

int kfeatures_probe(struct kfeatures *kf, char *why, size_t len)
{
	struct utsname u;
	size_t i;
	int ok, fd;

	memset(kf, 0, sizeof(*kf));
	if (!uname(&u))
		snprintf(kf->release, sizeof(kf->release), "%s", u.release);
	if (!kfeatures_release_ok(kf->release)) {
		snprintf(why, len, "kernel %s is older than %d.%d, the oldest msprof runs on",
			 kf->release, KFEATURES_MIN_MAJOR, KFEATURES_MIN_MINOR);
		return -ENOTSUP;
	}
	/* Privilege first: without it every probe below would say "absent". */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	if (fd < 0 && errno == ENOSYS) {
		snprintf(why, len, "kernel %s has no bpf() system call (it needs CONFIG_BPF_SYSCALL=y)",
			 kf->release);
		return -ENOTSUP;
	}
	if (fd < 0)
		return -errno;
	close(fd);
	for (i = 0; i < sizeof(requirements) / sizeof(requirements[0]); i++) {
		ok = requirements[i].present();
		if (ok < 0)
			return ok;
		if (!ok) {
			snprintf(why, len, "kernel %s has no %s (it needs %s)",
				 kf->release, requirements[i].what,
				 requirements[i].since);
			return -ENOTSUP;
		}
	}
	kf->cookies = has_helper(BPF_FUNC_get_attach_cookie) == 1 &&
		      !test_without("cookies");
	kf->uprobe_multi = uprobe_multi_supported() &&
			   !test_without("uprobe_multi");
	return 0;
}
