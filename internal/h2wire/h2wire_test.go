package h2wire

import (
	"bytes"
	"testing"

	"golang.org/x/net/http2/hpack"
)

func TestFromHTTP1(t *testing.T) {
	raw := []byte("POST /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: iobench\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi")
	req, err := FromHTTP1(raw, "http")
	if err != nil {
		t.Fatal(err)
	}
	fields, err := hpack.NewDecoder(4096, nil).DecodeFull(req.Block)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{":method=POST", ":scheme=http", ":authority=127.0.0.1:8080", ":path=/x?y=1", "user-agent=iobench", "content-length=2"}
	var got []string
	for _, f := range fields {
		got = append(got, f.Name+"="+f.Value)
	}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fields %v, want %v", got, want)
		}
	}
	if string(req.Body) != "hi" || req.Head {
		t.Errorf("body %q head %v", req.Body, req.Head)
	}
	again, _ := FromHTTP1(raw, "http")
	if !bytes.Equal(again.Block, req.Block) || !bytes.Equal(again.Next, req.Next) {
		t.Error("two encodings differ: the blocks must depend on nothing but the request")
	}
	// First then Next, as one connection's server decodes them: the same fields, Next in fewer
	// bytes, and the table holding exactly Table bytes.
	dec := hpack.NewDecoder(4096, nil)
	for _, block := range [][]byte{req.First, req.Next, req.Next} {
		fs, err := dec.DecodeFull(block)
		if err != nil || len(fs) != len(want) || fs[2].Value != "127.0.0.1:8080" || fs[4].Value != "iobench" {
			t.Fatalf("fields %v, err %v", fs, err)
		}
	}
	if len(req.Next) >= len(req.First) || len(req.Next) > 8 || req.Table != (32+10+14)+(32+5+6)+(32+10+7)+(32+14+1) {
		t.Errorf("first %d bytes, next %d, table %d; want next a few indices, the table :authority, :path, user-agent and content-length", len(req.First), len(req.Next), req.Table)
	}
	if _, err := FromHTTP1([]byte("GET / HTTP/1.1\r\n"), "http"); err == nil {
		t.Error("a request without its blank line was accepted")
	}
}

// serverBlock returns the header block of fields as a server's encoder makes it for a client that set
// SETTINGS_HEADER_TABLE_SIZE 0.
func serverBlock(enc *hpack.Encoder, buf *bytes.Buffer, fields ...hpack.HeaderField) []byte {
	buf.Reset()
	for _, f := range fields {
		enc.WriteField(f)
	}
	return append([]byte(nil), buf.Bytes()...)
}

func noTableEncoder(buf *bytes.Buffer) *hpack.Encoder {
	enc := hpack.NewEncoder(buf)
	enc.SetMaxDynamicTableSizeLimit(0)
	return enc
}

func TestStatusDecoder(t *testing.T) {
	var buf bytes.Buffer
	enc := noTableEncoder(&buf)
	s := NewStatusDecoder()
	for i, tc := range []struct {
		fields []hpack.HeaderField
		want   int
	}{
		{[]hpack.HeaderField{{Name: ":status", Value: "200"}, {Name: "server", Value: "x"}}, 200}, // opens with a table size update
		{[]hpack.HeaderField{{Name: ":status", Value: "200"}, {Name: "server", Value: "x"}}, 200},
		{[]hpack.HeaderField{{Name: "server", Value: "x"}, {Name: ":status", Value: "302"}, {Name: "location", Value: "/y"}}, 302}, // Huffman-coded literal
		{[]hpack.HeaderField{{Name: ":status", Value: "302", Sensitive: true}}, 302},
		{[]hpack.HeaderField{{Name: ":status", Value: "404"}}, 404},
		{[]hpack.HeaderField{{Name: "grpc-status", Value: "0"}}, 0}, // trailers
	} {
		got, err := s.Decode(serverBlock(enc, &buf, tc.fields...))
		if err != nil || got != tc.want {
			t.Errorf("block %d: status %d, err %v; want %d", i, got, err, tc.want)
		}
	}
	for _, bad := range [][]byte{{0xbe}, {0x40 | 0x3f, 0x10}, {0x48, 0x85}, {0x48, 0x03, 'x', '2', '0'}, {0xff, 0xff, 0xff}} {
		if st, err := s.Decode(bad); err == nil {
			t.Errorf("block % x: status %d accepted; want an error (a dynamic reference, a truncated or malformed field)", bad, st)
		}
	}
}

// TestStatusDecoderAllocs checks a block as nginx sends it, every header a literal "with
// incremental indexing", decodes without allocating.
func TestStatusDecoderAllocs(t *testing.T) {
	var buf bytes.Buffer
	enc := noTableEncoder(&buf)
	block := serverBlock(enc, &buf, hpack.HeaderField{Name: ":status", Value: "200"},
		hpack.HeaderField{Name: "server", Value: "nginx/1.22.1"},
		hpack.HeaderField{Name: "date", Value: "Fri, 27 Nov 2026 10:00:00 GMT"},
		hpack.HeaderField{Name: "content-type", Value: "text/plain"},
		hpack.HeaderField{Name: "content-length", Value: "12"})
	s := NewStatusDecoder()
	if n := testing.AllocsPerRun(100, func() {
		if st, err := s.Decode(block); st != 200 || err != nil {
			t.Fatalf("status %d, err %v", st, err)
		}
	}); n != 0 {
		t.Errorf("%.1f allocations per block, want 0", n)
	}
}

func TestFrames(t *testing.T) {
	b := AppendSettings(nil, false, Setting{SettingMaxConcurrentStreams, 100}, Setting{SettingInitialWindowSize, 1 << 20})
	h := ParseHeader(b)
	if h.Type != TypeSettings || h.Length != 12 || h.Flags != 0 || h.Stream != 0 {
		t.Fatalf("header %+v", h)
	}
	var got []Setting
	if !Settings(b[HeaderLen:], func(s Setting) { got = append(got, s) }) || len(got) != 2 || got[1].Val != 1<<20 {
		t.Fatalf("settings %v", got)
	}
	b = AppendWindowUpdate(nil, 7, 1000)
	if h := ParseHeader(b); h.Type != TypeWindowUpdate || h.Stream != 7 || Uint32(b[HeaderLen:]) != 1000 {
		t.Fatalf("window update %+v", h)
	}
	SetStream(b, 9)
	if ParseHeader(b).Stream != 9 {
		t.Error("SetStream")
	}
	frag, ok := Unpad(Header{Type: TypeHeaders, Flags: FlagPadded | FlagPriority}, []byte{2, 0, 0, 0, 1, 16, 'a', 'b', 0, 0})
	if !ok || string(frag) != "ab" {
		t.Errorf("unpadded %q, %v", frag, ok)
	}
	if _, ok := Unpad(Header{Type: TypeData, Flags: FlagPadded}, []byte{5, 'a'}); ok {
		t.Error("padding longer than the payload accepted")
	}
}
