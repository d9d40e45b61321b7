package busproto

import (
	"encoding/json"
	"errors"
	"testing"
)

const testID = "6f1c2a4e-9b7d-4c3a-8e2f-0123456789ab"

func TestCommandRoundTrip(t *testing.T) {
	body := AppendCommand(nil, testID, 42, 1700000000123456789)
	if !json.Valid(body) {
		t.Fatalf("not JSON: %s", body)
	}
	m, err := DecodeMessage(body)
	if err != nil {
		t.Fatal(err)
	}
	want := Message{Type: TypeCommand, ID: testID, Name: "name_42", Email: Email, Seq: 42, SentNS: 1700000000123456789}
	if m != want {
		t.Fatalf("got %+v, want %+v", m, want)
	}
	ev, err := DecodeMessage(AppendEvent(nil, &m))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Message{Type: TypeEvent, ID: testID, Seq: 42, SentNS: m.SentNS}); ev != want {
		t.Fatalf("event %+v, want %+v", ev, want)
	}
}

func TestDecodeMessageRejects(t *testing.T) {
	for name, body := range map[string]string{
		"not json":        `{"type":`,
		"no type":         `{"id":"` + testID + `","seq":1}`,
		"other type":      `{"type":"query","id":"` + testID + `","seq":1}`,
		"short id":        `{"type":"event","id":"6f1c2a4e","seq":1}`,
		"id with quote":   `{"type":"event","id":"6f1c2a4e-9b7d-4c3a-8e2f-0123456789a\"","seq":1}`,
		"negative seq":    `{"type":"event","id":"` + testID + `","seq":-1}`,
		"command no name": `{"type":"command","id":"` + testID + `","email":"a@b","seq":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := DecodeMessage([]byte(body)); !errors.Is(err, ErrBadMessage) {
				t.Fatalf("err = %v, want ErrBadMessage", err)
			}
		})
	}
}

// FuzzDecodeMessage checks that any body either fails cleanly or yields a message whose event
// body is valid JSON that decodes to the same id, seq and time.
func FuzzDecodeMessage(f *testing.F) {
	f.Add(AppendCommand(nil, testID, 7, 99))
	f.Add([]byte(`{"type":"event","id":"` + testID + `","seq":3,"sent_ns":5}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := DecodeMessage(body)
		if err != nil {
			return
		}
		ev, err := DecodeMessage(AppendEvent(nil, &m))
		if err != nil {
			t.Fatalf("event of %q does not decode: %v", body, err)
		}
		if ev.ID != m.ID || ev.Seq != m.Seq || ev.SentNS != m.SentNS {
			t.Fatalf("event %+v lost fields of %+v", ev, m)
		}
	})
}

func TestDecodeFlat(t *testing.T) {
	cmd := AppendCommand(nil, testID, 42, 1700000000123456789)
	ev := []byte(`{"type":"event","id":"` + testID + `","seq":42,"sent_ns":1700000000123456789}`)
	for _, body := range [][]byte{cmd, ev, []byte(" { \"seq\" : -0 ,\n\"type\":\"event\" } "), []byte("{}")} {
		var m Message
		if !decodeFlat(body, &m) {
			t.Errorf("%s: not taken the quick way", body)
		}
	}
	for _, body := range []string{
		`{"Type":"event"}`, `{"type":"ev\u0065nt"}`, `{"type":"é"}`, `{"seq":1.5}`, `{"seq":01}`,
		`{"seq":"1"}`, `{"name":null}`, `{"seq":99999999999999999999}`, `{"seq":1,}`, `{,}`, `{"seq":1}x`,
	} {
		var m Message
		if decodeFlat([]byte(body), &m) {
			t.Errorf("%s: taken the quick way, want encoding/json's", body)
		}
	}
}

// FuzzDecodeFlat checks that what decodeFlat takes, encoding/json decodes the same.
func FuzzDecodeFlat(f *testing.F) {
	f.Add(AppendCommand(nil, testID, 7, 99))
	f.Add([]byte(`{"type":"event","id":"x","seq":3,"sent_ns":-5,"seq":4}`))
	f.Add([]byte(" {\t} "))
	f.Add([]byte(`{"seq":-9223372036854775808,"sent_ns":9223372036854775807}`))
	f.Add([]byte(`{"seq":9223372036854775808}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var quick, slow Message
		if !decodeFlat(body, &quick) {
			return
		}
		if err := json.Unmarshal(body, &slow); err != nil || quick != slow {
			t.Fatalf("%q: decodeFlat %+v, encoding/json %+v (%v)", body, quick, slow, err)
		}
	})
}
