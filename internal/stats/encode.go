package stats

import (
	"encoding/base64"
	"encoding/binary"
	"hash/adler32"
	"math"
	"math/bits"
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
	outerHeaderSize    = 8 // the compressed cookie and the length of the zlib stream
	zlibHeaderSize     = 2
	storedHeaderSize   = 5 // a stored block's final bit and type, then its length and complement
	maxStoredBlock     = 0xffff
)

// bucketOf returns the flat index and the width of the bucket whose lowest value is v.
func bucketOf(v int64) (index int, width int64) {
	b := bits.Len64(uint64(v)|subBucketMask) - subBucketBits
	return (b+1)<<halfBucketBits + int(v>>b) - 1<<halfBucketBits, 1 << b
}

// sparse returns a Sparse copy of h, to walk its populated buckets: it allocates per populated
// bucket rather than per bucket of the range (the dense walk of hdr's Distribution allocates
// 24 bytes for each of up to 23,552 buckets).
func (h *Histogram) sparse() *Sparse {
	s := NewSparse()
	s.Add(h)
	return s
}

// each calls fn with the lowest value, width and count of every populated bucket of s, in
// ascending order.
func (s *Sparse) each(fn func(from, width, count int64)) {
	s.p.ForEachBucket(func(v, n int64) bool {
		_, w := bucketOf(v)
		fn(v, w, n)
		return true
	})
}

// encode returns s in HdrHistogram's V2 compressed encoding (base64), which hdr's Decode and
// every HdrHistogram implementation read. Unlike hdr's EncodeV2 it stores the counts in zlib
// stored blocks: deflating them at hdr's BestCompression needs a 650 KiB compressor, more than
// half the lean generator's heap at the end of a run, to save about 30% of a few KiB.
func (s *Sparse) encode() string {
	const lead = outerHeaderSize + zlibHeaderSize + storedHeaderSize // room to wrap one block in place
	b := make([]byte, lead+v2HeaderSize, lead+v2HeaderSize+4*int(s.p.Populated())+16)
	next := 0 // the flat index after the last one written
	s.each(func(from, _, count int64) {
		i, _ := bucketOf(from)
		switch gap := i - next; {
		case gap == 1:
			b = appendZigZag(b, 0)
		case gap > 1:
			b = appendZigZag(b, -int64(gap)) // a run of empty buckets
		}
		b = appendZigZag(b, count)
		next = i + 1
	})
	be := binary.BigEndian
	payload := b[lead:]
	be.PutUint32(payload[0:], v2Cookie)
	be.PutUint32(payload[4:], uint32(len(payload)-v2HeaderSize))
	be.PutUint32(payload[8:], 0) // normalizing index offset
	be.PutUint32(payload[12:], sigFigs)
	be.PutUint64(payload[16:], lowest)
	be.PutUint64(payload[24:], uint64(highest))
	be.PutUint64(payload[32:], math.Float64bits(1)) // integer to double conversion ratio
	var out []byte
	if len(payload) <= maxStoredBlock { // the usual case: wrap the payload where it lies
		out = storedBlock(b[:outerHeaderSize], payload)
		out = be.AppendUint32(out, adler32.Checksum(payload))
	} else {
		out = zlibStored(make([]byte, outerHeaderSize, outerHeaderSize+len(payload)+len(payload)/maxStoredBlock*storedHeaderSize+16), payload)
	}
	be.PutUint32(out[0:], v2CompressedCookie)
	be.PutUint32(out[4:], uint32(len(out)-outerHeaderSize))
	return base64.StdEncoding.EncodeToString(out)
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

// storedBlock appends to dst the zlib header and p as one final stored block. p may already lie
// where it goes, right after them in dst's array: then nothing is allocated.
func storedBlock(dst, p []byte) []byte {
	n := len(p)
	dst = append(dst, 0x78, 0x01) // deflate, 32 KiB window; no dictionary; fastest
	dst = append(dst, 1, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
	return append(dst, p...)
}

// zlibStored appends to dst p as a zlib stream (RFC 1950) of stored deflate blocks (RFC 1951);
// p must not share dst's array.
func zlibStored(dst, p []byte) []byte {
	dst = append(dst, 0x78, 0x01)
	for rest := p; ; {
		n := min(len(rest), maxStoredBlock)
		final := byte(0)
		if n == len(rest) {
			final = 1
		}
		dst = append(dst, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		dst = append(dst, rest[:n]...)
		if rest = rest[n:]; final == 1 {
			return binary.BigEndian.AppendUint32(dst, adler32.Checksum(p))
		}
	}
}
