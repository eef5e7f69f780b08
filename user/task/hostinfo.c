// SPDX-License-Identifier: MIT
/* The host facts msprof's info.json carries, from the kernel's files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hostinfo.h"
#include "common/safe_open.h"

/* The first line of a kernel file, without its newline; "" if none. */
static void first_line(const char *path, char *out, size_t len)
{
	FILE *fp = fopen(path, "re");

	*out = '\0';
	if (!fp)
		return;
	if (!fgets(out, (int)len, fp))
		*out = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(fp);
}

/* "key<spaces>: value" lines of /proc/cpuinfo and /proc/meminfo. */
static void proc_value(const char *path, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	char line[512], *v;
	FILE *fp = fopen(path, "re");

	*out = '\0';
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, key, klen) || !strchr(" \t:", line[klen]))
			continue;
		v = strchr(line, ':');
		if (!v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, len, "%s", v);
		break;
	}
	fclose(fp);
}

/*
 * An id file: only a regular file (no FIFO to hang on, no link), and only
 * the characters an id has.  0 if out holds one.
 */
static int read_id(const char *path, char *out, size_t len)
{
	struct stat st;
	ssize_t n;
	size_t m;
	int fd = safe_open_nofollow(path, &st);

	if (fd < 0)
		return fd;
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		return -ENODATA;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	m = strlen(out);
	if (m < 16 || strspn(out, "0123456789abcdef-") != m)
		return -EINVAL;
	return 0;
}

static void read_netcards(struct hostinfo *h)
{
	DIR *d = opendir("/sys/class/net");
	char path[64 + IF_NAMESIZE], speed[32];
	struct dirent *de;
	long v;

	if (!d)
		return;
	while ((de = readdir(d)) && h->netcards < HOSTINFO_NETCARDS) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= IF_NAMESIZE)
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%.*s/speed",
			 IF_NAMESIZE - 1, de->d_name);
		/* A link that is down has no speed: left out, as msprof does. */
		first_line(path, speed, sizeof(speed));
		if (!*speed || strspn(speed, "0123456789") != strlen(speed))
			continue;
		v = strtol(speed, NULL, 10);
		snprintf(h->netcard[h->netcards].name, IF_NAMESIZE, "%.*s",
			 IF_NAMESIZE - 1, de->d_name);
		h->netcard[h->netcards++].speed = v > 0x7fffffff ? 0x7fffffff : (int)v;
	}
	closedir(d);
}

void hostinfo_read(struct hostinfo *h)
{
	struct utsname u;
	char mem[64];

	memset(h, 0, sizeof(*h));
	if (!uname(&u)) {
		snprintf(h->os, sizeof(h->os), "%.40s-%.80s", u.sysname, u.release);
		snprintf(h->hwtype, sizeof(h->hwtype), "%.63s", u.machine);
	}
	if (gethostname(h->hostname, sizeof(h->hostname) - 1))
		*h->hostname = '\0';
	first_line("/proc/uptime", h->uptime, sizeof(h->uptime));
	proc_value("/proc/meminfo", "MemTotal", mem, sizeof(mem));
	h->mem_total_kb = strtoull(mem, NULL, 10);
	proc_value("/proc/cpuinfo", "vendor_id", h->cpu_vendor, sizeof(h->cpu_vendor));
	proc_value("/proc/cpuinfo", "model name", h->cpu_model, sizeof(h->cpu_model));
	h->cpus = sysconf(_SC_NPROCESSORS_CONF);
	h->clk_tck = sysconf(_SC_CLK_TCK);
	read_netcards(h);
	if (read_id("/etc/machine-id", h->host_uid, sizeof(h->host_uid)) &&
	    read_id("/proc/sys/kernel/random/boot_id", h->host_uid,
		    sizeof(h->host_uid)))
		snprintf(h->host_uid, sizeof(h->host_uid), "0");
}
