// SPDX-License-Identifier: MIT
/* PROF_ directories: their names, their layout and their description. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <string.h>

#include "json.h"
#include "profdir.h"
#include "testpoint.h"

int profdir_name(char *buf, size_t len, unsigned int index, uint64_t real_ns,
		 const unsigned char rnd[16])
{
	time_t secs = (time_t)(real_ns / 1000000000ull);
	char stamp[32], letters[17];
	struct tm tm;
	int i, n;

	localtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	for (i = 0; i < 16; i++)
		letters[i] = (char)('A' + rnd[i] % 18);	/* A..R */
	letters[16] = '\0';
	n = snprintf(buf, len, "PROF_%06u_%s%03u_%s", index % 1000000, stamp,
		     (unsigned int)(real_ns / 1000000ull % 1000), letters);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Files msprof writes into a PROF_ directory are always new: a name that
 * exists already (a link planted by someone else) is refused, not followed.
 */
static int create_new(const char *dir, const char *name, FILE **fp)
{
	char path[4096];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	*fp = fdopen(fd, "w");
	if (!*fp) {
		close(fd);
		return -errno;
	}
	return 0;
}

static int close_new(FILE *fp)
{
	int err = ferror(fp) ? -EIO : 0;

	if (fclose(fp) && !err)
		err = -errno;
	return err;
}

static int write_clock_file(const char *dir, const char *name, const char *key,
			    const struct clock_pair *c)
{
	FILE *fp;
	int err = create_new(dir, name, &fp);

	if (err)
		return err;
	/* msprof's own keys, plus the clock every record here uses. */
	fprintf(fp, "{\"%s\": \"%llu\", \"clockMonotonicRaw\": \"%llu\", \"clockMonotonic\": \"%llu\"}\n",
		key, (unsigned long long)(c->real_ns / 1000),
		(unsigned long long)c->raw_ns, (unsigned long long)c->mono_ns);
	return close_new(fp);
}

int profdir_create(const char *output, unsigned int index,
		   const struct clock_pair *start, char *dir, size_t len)
{
	unsigned char rnd[16];
	char name[64], sub[4096];
	int err;

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -errno;
	err = profdir_name(name, sizeof(name), index, start->real_ns, rnd);
	if (err)
		return err;
	if (snprintf(dir, len, "%s/%s", output, name) >= (int)len ||
	    snprintf(sub, sizeof(sub), "%s/host", dir) >= (int)sizeof(sub))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0750) || mkdir(sub, 0750))
		return -errno;
	snprintf(sub, sizeof(sub), "%s/%s", dir, PROFDIR_HOST_DATA);
	if (mkdir(sub, 0750))
		return -errno;
	return write_clock_file(dir, "start_info", "collectionTimeBegin", start);
}

int profdir_finish(const char *dir, const struct profdir_summary *s)
{
	FILE *fp;
	int err;

	err = write_clock_file(dir, "end_info", "collectionTimeEnd", &s->end);
	if (!err)
		err = create_new(dir, PROFDIR_INFO, &fp);
	if (err)
		return err;
	fprintf(fp, "{\n  \"tool\": \"msprof-ebpf\",\n  \"version\": 1,\n"
		"  \"pid\": %d,\n  \"ns_pid\": %d,\n  \"comm\": ",
		s->host_pid, s->ns_pid);
	json_put_str(fp, s->comm);
	fprintf(fp, ",\n  \"window\": %u,\n"
		"  \"start\": {\"mono_ns\": %llu, \"real_ns\": %llu},\n"
		"  \"end\": {\"mono_ns\": %llu, \"real_ns\": %llu},\n"
		"  \"host\": {\"api_events\": %llu, \"ioctl_events\": %llu, "
		"\"lost_events\": %llu, \"unfinished_at_stop\": %llu},\n"
		"  \"target_exited\": %s,\n  \"device_status\": ",
		s->window,
		(unsigned long long)s->start.mono_ns,
		(unsigned long long)s->start.real_ns,
		(unsigned long long)s->end.mono_ns,
		(unsigned long long)s->end.real_ns,
		(unsigned long long)s->api_events,
		(unsigned long long)s->ioctl_events,
		(unsigned long long)s->lost_events,
		(unsigned long long)s->unfinished,
		s->target_exited ? "true" : "false");
	json_put_str(fp, s->device_status);
	fputs("\n}\n", fp);
	testpoint("after-info-json-tmp");
	return close_new(fp);
}

int profdir_discard(const char *dir)
{
	static const char *const made[] = {
		PROFDIR_HOST_FILE, PROFDIR_HOST_DATA, "host", "start_info",
	};
	char path[4096];
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, made[i]);
		if (remove(path) && errno != ENOENT && !err)
			err = -errno;
	}
	if (rmdir(dir) && !err)
		err = -errno;
	return err;
}
