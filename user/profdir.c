// SPDX-License-Identifier: MIT
/* PROF_ directories: their names, their layout and their description. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "json.h"
#include "profdir.h"

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

/* Closes a stream; 0, or the first error it met. */
static int close_text(FILE *fp)
{
	int err = ferror(fp) ? -EIO : 0;

	if (fclose(fp) && !err)
		err = -errno;
	return err;
}

/* Files msprof writes into a PROF_ directory are always new. */
static int write_clock_file(int dir, const char *name, const char *key,
			    const struct clock_pair *c)
{
	char text[256];
	int n;

	/* msprof's own keys, plus the clock every record here uses. */
	n = snprintf(text, sizeof(text),
		     "{\"%s\": \"%llu\", \"clockMonotonicRaw\": \"%llu\", \"clockMonotonic\": \"%llu\"}\n",
		     key, (unsigned long long)(c->real_ns / 1000),
		     (unsigned long long)c->raw_ns, (unsigned long long)c->mono_ns);
	return write_new_at(dir, name, text, (size_t)n);
}

/*
 * info.json: "collecting" while the window runs; at its end "complete" or
 * "incomplete" with the reason, and the end's fields.
 */
static int info_text(const struct profdir_summary *s, bool ended, char **buf,
		     size_t *len)
{
	FILE *fp = open_memstream(buf, len);
	const char *state = !ended ? "collecting" :
			    s->incomplete_reason ? "incomplete" : "complete";

	if (!fp)
		return -errno;
	fprintf(fp, "{\n  \"tool\": \"msprof-ebpf\",\n  \"version\": 1,\n"
		"  \"state\": \"%s\",\n", state);
	if (ended && s->incomplete_reason) {
		fputs("  \"incomplete_reason\": ", fp);
		json_put_str(fp, s->incomplete_reason);
		fputs(",\n", fp);
	}
	fprintf(fp, "  \"pid\": %d,\n  \"ns_pid\": %d,\n  \"comm\": ",
		s->host_pid, s->ns_pid);
	json_put_str(fp, s->comm);
	fprintf(fp, ",\n  \"window\": %u,\n"
		"  \"start\": {\"mono_ns\": %llu, \"real_ns\": %llu}",
		s->window, (unsigned long long)s->start.mono_ns,
		(unsigned long long)s->start.real_ns);
	if (!ended) {
		if (s->device_status) {
			fputs(",\n  \"device_status\": ", fp);
			json_put_str(fp, s->device_status);
		}
		fputs("\n}\n", fp);
		return close_text(fp);
	}
	fprintf(fp, ",\n"
		"  \"end\": {\"mono_ns\": %llu, \"real_ns\": %llu},\n"
		"  \"host\": {\"api_events\": %llu, \"ioctl_events\": %llu, "
		"\"lost_events\": %llu, \"unfinished_at_stop\": %llu},\n"
		"  \"target_exited\": %s,\n  \"device_status\": ",
		(unsigned long long)s->end.mono_ns,
		(unsigned long long)s->end.real_ns,
		(unsigned long long)s->api_events,
		(unsigned long long)s->ioctl_events,
		(unsigned long long)s->lost_events,
		(unsigned long long)s->unfinished,
		s->target_exited ? "true" : "false");
	json_put_str(fp, s->device_status);
	fputs("\n}\n", fp);
	return close_text(fp);
}

static int write_info(int dir, const struct profdir_summary *s, bool ended)
{
	char *text = NULL;
	size_t len;
	int err;

	err = info_text(s, ended, &text, &len);
	if (!err)
		err = ended ? write_replace_at(dir, PROFDIR_INFO, text, len) :
			      write_new_at(dir, PROFDIR_INFO, text, len);
	free(text);
	return err;
}

/* What profdir_create() makes, innermost first: what discard removes. */
static const char *const made_files[] = {
	PROFDIR_HOST_FILE, PROFDIR_INFO, "start_info",
};
static const char *const made_dirs[] = { PROFDIR_HOST_DATA, "host" };

int profdir_create(int out, const struct profdir_summary *s, char *name,
		   size_t len, int *dir)
{
	unsigned char rnd[16];
	size_t i;
	int err;

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -errno;
	err = profdir_name(name, len, s->window, s->start.real_ns, rnd);
	if (err)
		return err;
	if (mkdirat(out, name, 0750))
		return -errno;
	*dir = openat(out, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dir < 0) {
		err = -errno;
		unlinkat(out, name, AT_REMOVEDIR);
		return err;
	}
	/* Made by us just now, in a directory only root writes: no links. */
	for (i = sizeof(made_dirs) / sizeof(made_dirs[0]); !err && i--;)
		if (mkdirat(*dir, made_dirs[i], 0750))
			err = -errno;
	if (!err)
		err = write_clock_file(*dir, "start_info", "collectionTimeBegin",
				       &s->start);
	if (!err)
		err = write_info(*dir, s, false);
	if (err) {
		profdir_discard(out, name, *dir);
		*dir = -1;
	}
	return err;
}

int profdir_open_host_file(int dir, int *fd)
{
	return create_at(dir, PROFDIR_HOST_FILE, fd);
}

int profdir_finish(int dir, const struct profdir_summary *s)
{
	struct profdir_summary inc = *s;
	char why[96];
	int err, fd;

	/* The data first on disk, then the word that it is complete. */
	fd = openat(dir, PROFDIR_HOST_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	err = fd < 0 || fsync(fd) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	if (err && !inc.incomplete_reason) {
		snprintf(why, sizeof(why), "host data not synced: %s",
			 strerror(-err));
		inc.incomplete_reason = why;
	}
	err = write_clock_file(dir, "end_info", "collectionTimeEnd", &s->end);
	if (err && !inc.incomplete_reason)
		inc.incomplete_reason = "cannot write end_info";
	return write_info(dir, &inc, true) ?: err;
}

void profdir_discard(int out, const char *name, int dir)
{
	size_t i;

	for (i = 0; i < sizeof(made_files) / sizeof(made_files[0]); i++)
		unlinkat(dir, made_files[i], 0);
	for (i = 0; i < sizeof(made_dirs) / sizeof(made_dirs[0]); i++)
		unlinkat(dir, made_dirs[i], AT_REMOVEDIR);
	close(dir);
	unlinkat(out, name, AT_REMOVEDIR);
}
