#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copies the kernel's own BTF (.BTF) out of a kernel boot image.

Usage: extract-btf.py <vmlinuz> <out.btf>

An arm64 Image holds .BTF as is; an x86 bzImage holds the kernel compressed
(the setup header names where), so that payload is decompressed first.  The
BTF blob is found by its header and must be the only valid one: a wrong blob
would give a header for some other kernel without anyone noticing.
"""
import gzip
import io
import lzma
import struct
import sys

BTF_MAGIC = b"\x9f\xeb"	# 0xeB9F, little-endian: both targets are
BTF_HDR = struct.Struct("<HBBIIIII")	# magic version flags hdr_len type_off type_len str_off str_len
BZIMAGE_MAGIC = b"HdrS"


def fail(msg):
	sys.exit("extract-btf: " + msg)


def bzimage_payload(img):
	"""The decompressed kernel of an x86 bzImage, or None for other images."""
	if img[0x202:0x206] != BZIMAGE_MAGIC:
		return None
	version = struct.unpack_from("<H", img, 0x206)[0]
	if version < 0x208:
		fail("bzImage boot protocol %#x has no payload fields (need 2.08+)" % version)
	setup_sects = img[0x1f1] or 4
	off, length = struct.unpack_from("<II", img, 0x248)
	start = (setup_sects + 1) * 512 + off
	if start + length > len(img):
		fail("bzImage payload (%d bytes at %d) runs past the image" % (length, start))
	payload = img[start:start + length]
	# The build appends the decompressed size after the stream: decompress
	# one stream and ignore what follows.
	if payload.startswith(b"\xfd7zXZ\x00"):
		return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(payload)
	if payload.startswith(b"\x1f\x8b"):
		return gzip.GzipFile(fileobj=io.BytesIO(payload)).read()
	fail("bzImage payload compression %s is not handled (xz and gzip are)" % payload[:6].hex())


def btf_blobs(kernel):
	"""Every well-formed BTF blob (offset, size) in the kernel image."""
	pos = kernel.find(BTF_MAGIC)
	while pos >= 0:
		if pos + BTF_HDR.size <= len(kernel):
			_, ver, flags, hdr_len, type_off, type_len, str_off, str_len = \
				BTF_HDR.unpack_from(kernel, pos)
			size = hdr_len + max(type_off + type_len, str_off + str_len)
			if (ver == 1 and flags == 0 and hdr_len == BTF_HDR.size and
			    type_off == 0 and str_off == type_len and
			    type_len > 0 and str_len > 0 and
			    pos + size <= len(kernel) and
			    kernel[pos + hdr_len + str_off] == 0):
				yield pos, size
		pos = kernel.find(BTF_MAGIC, pos + 1)


def main():
	if len(sys.argv) != 3:
		sys.exit("usage: extract-btf.py <vmlinuz> <out.btf>")
	with open(sys.argv[1], "rb") as f:
		img = f.read()
	kernel = bzimage_payload(img) or img
	blobs = list(btf_blobs(kernel))
	if len(blobs) != 1:
		fail("%s: found %d BTF blobs, want exactly 1" % (sys.argv[1], len(blobs)))
	pos, size = blobs[0]
	with open(sys.argv[2], "xb") as f:
		f.write(kernel[pos:pos + size])


if __name__ == "__main__":
	main()
