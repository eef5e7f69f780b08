// SPDX-License-Identifier: MIT
/* SipHash-2-4 (Aumasson and Bernstein), from its published description. */
#include <errno.h>
#include <sys/random.h>

#include "keyhash.h"

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13) ^ v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17) ^ v[2];
	v[2] = ROTL(v[2], 32);
}

static void absorb(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sip_round(v);
	sip_round(v);
	v[0] ^= m;
}

/* The message's bytes from p on as a little-endian word, n < 8 of them. */
static uint64_t load_le(const unsigned char *p, size_t n)
{
	uint64_t m = 0;

	while (n--)
		m |= (uint64_t)p[n] << (8 * n);
	return m;
}

uint64_t keyhash(const struct keyhash_key *key, const void *data, size_t len)
{
	uint64_t v[4] = {
		key->k[0] ^ 0x736f6d6570736575ull,
		key->k[1] ^ 0x646f72616e646f6dull,
		key->k[0] ^ 0x6c7967656e657261ull,
		key->k[1] ^ 0x7465646279746573ull,
	};
	const unsigned char *p = data;
	size_t left = len;

	for (; left >= 8; p += 8, left -= 8)
		absorb(v, load_le(p, 8));
	absorb(v, load_le(p, left) | (uint64_t)len << 56);
	v[2] ^= 0xff;
	sip_round(v);
	sip_round(v);
	sip_round(v);
	sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

int keyhash_key_new(struct keyhash_key *key)
{
	ssize_t n = getrandom(key->k, sizeof(key->k), 0);

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(key->k) ? 0 : -EIO;
}
