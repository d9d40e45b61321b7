package stats

import (
	"encoding/base64"
	"encoding/binary"
	"hash/adler32"
	"math"
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The bucket geometry hdr derives for 1 µs..1 h at 3 significant digits: 2,048 sub-buckets of
// 1 µs under 2,048 µs, then 1,024 more per doubling. TestEncodeMatchesLibrary holds these to the
// library's own arithmetic.
const (
	subBucketBits  = 11 // log2 of the 2,048 sub-buckets
	halfBucketBits = subBucketBits - 1
	subBucketMask  = 1<<subBucketBits - 1

	v2Cookie           = 0x1c849303 | 0x10 // hdr's V2 encoding cookie (word size 8)
	v2CompressedCookie = 0x1c849304 | 0x10
	v2HeaderSize       = 40
)

// bucketOf returns the flat index and the width of the bucket whose lowest value is v.
func bucketOf(v int64) (index int, width int64) {
	b := bits.Len64(uint64(v)|subBucketMask) - subBucketBits
	return (b+1)<<halfBucketBits + int(v>>b) - 1<<halfBucketBits, 1 << b
}

// eachBucket calls fn with the lowest value, width and count of every populated bucket of h, in
// ascending order. It goes through a sparse copy of h, which allocates per populated bucket
// rather than per bucket of the range (the dense iteration of hdr's Distribution allocates
// 24 bytes for each of up to 23,552 buckets).
func (h *Histogram) eachBucket(fn func(from, width, count int64)) {
	p := hdr.NewPacked(lowest, highest, sigFigs)
	p.MergeFrom(h.h)
	p.ForEachBucket(func(v, n int64) bool {
		_, w := bucketOf(v)
		fn(v, w, n)
		return true
	})
}

// encode returns h in HdrHistogram's V2 compressed encoding (base64), which hdr's Decode and
// every HdrHistogram implementation read. Unlike hdr's EncodeV2 it stores the counts in zlib
// stored blocks: deflating them at hdr's BestCompression needs a 650 KiB compressor, more than
// half the lean generator's heap at the end of a run, to save about 30% of a few KiB.
func (h *Histogram) encode() string {
	payload := make([]byte, v2HeaderSize, v2HeaderSize+1024)
	next := 0 // the flat index after the last one written
	h.eachBucket(func(from, _, count int64) {
		i, _ := bucketOf(from)
		switch gap := i - next; {
		case gap == 1:
			payload = appendZigZag(payload, 0)
		case gap > 1:
			payload = appendZigZag(payload, -int64(gap)) // a run of empty buckets
		}
		payload = appendZigZag(payload, count)
		next = i + 1
	})
	be := binary.BigEndian
	be.PutUint32(payload[0:], v2Cookie)
	be.PutUint32(payload[4:], uint32(len(payload)-v2HeaderSize))
	be.PutUint32(payload[8:], 0) // normalizing index offset
	be.PutUint32(payload[12:], sigFigs)
	be.PutUint64(payload[16:], lowest)
	be.PutUint64(payload[24:], uint64(highest))
	be.PutUint64(payload[32:], math.Float64bits(1)) // integer to double conversion ratio
	z := zlibStored(payload)
	out := make([]byte, 8, 8+len(z))
	be.PutUint32(out[0:], v2CompressedCookie)
	be.PutUint32(out[4:], uint32(len(z)))
	return base64.StdEncoding.EncodeToString(append(out, z...))
}

// appendZigZag appends v as hdr's ZigZag LEB128-64b9B: seven bits a byte, the ninth byte whole.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for range 8 {
		if u < 0x80 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// zlibStored wraps p in a zlib stream of stored (uncompressed) deflate blocks (RFC 1950, 1951).
func zlibStored(p []byte) []byte {
	const maxBlock = 0xffff
	out := make([]byte, 0, 2+len(p)+5*(len(p)/maxBlock+1)+4)
	out = append(out, 0x78, 0x01) // deflate, 32 KiB window; no dictionary; fastest
	rest := p
	for {
		n := min(len(rest), maxBlock)
		final := byte(0)
		if n == len(rest) {
			final = 1
		}
		out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, rest[:n]...)
		rest = rest[n:]
		if final == 1 {
			return binary.BigEndian.AppendUint32(out, adler32.Checksum(p))
		}
	}
}
