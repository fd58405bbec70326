package output

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// roundTrip is what SortedJSON did before sortKeys: decode into maps, numbers as written,
// and marshal again. sortKeys must write the same bytes.
func roundTrip(t testing.TB, raw []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	out, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type sortKeysFixture struct {
	Zeta    string            `json:"zeta"`
	Alpha   []int             `json:"alpha,omitempty"`
	Mid     map[string]any    `json:"mid"`
	When    time.Time         `json:"when"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Nested  []sortKeysFixture `json:"nested,omitempty"`
	Float   float64           `json:"float"`
	Pointer *bool             `json:"pointer"`
}

func TestSortKeysMatchesTheRoundTrip(t *testing.T) {
	yes := true
	values := []any{
		nil, true, 0, -1.5e-7, "", "plain", []any{}, map[string]any{},
		"<script>&amp;</script>", "tab\there\nnewline", "é ü 中文 \u2028 \u2029", string([]byte{'a', 0xff, 'b'}), "\x01\x7f",
		map[string]any{"b": 1, "a": map[string]any{"d": []any{map[string]any{"z": 1, "y": 2}}, "c": nil}, "é": 1, "e": 2, "<": 3, "a\u2028": 4, "A": 5},
		sortKeysFixture{Zeta: "z", Alpha: []int{3, 1}, Mid: map[string]any{"y": "\u00e9", "x": 1e21}, When: time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC),
			Raw:    json.RawMessage(`{"b" : "\u00e9\/", "a":[1 , 2.50, 1e3, -0], "b2": {"k": "<"}, "dup": 1, "dup": 2}`),
			Nested: []sortKeysFixture{{Zeta: "inner", Pointer: &yes, Raw: json.RawMessage(`"\ud83d\ude00"`)}}, Float: 1.0 / 3},
	}
	for _, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sortKeys(raw)
		if err != nil {
			t.Fatalf("sortKeys(%s): %v", raw, err)
		}
		if want := roundTrip(t, raw); !bytes.Equal(got, want) {
			t.Errorf("sortKeys(%s)\n got %s\nwant %s", raw, got, want)
		}
	}
}

func TestSortKeysRefusesInvalidJSON(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `"open`, `tru`, `1 2`, `{"a":1}x`, `{a:1}`, `01`} {
		if out, err := sortKeys([]byte(in)); err == nil {
			t.Errorf("sortKeys(%q) = %s, want an error", in, out)
		}
	}
}

// BenchmarkSortKeys compares sortKeys with the round trip it replaces, on a report-sized value.
func BenchmarkSortKeys(b *testing.B) {
	var items []sortKeysFixture
	for i := range 2000 {
		items = append(items, sortKeysFixture{Zeta: "object-name-" + string(rune('a'+i%26)), Alpha: []int{i, i + 1}, Mid: map[string]any{"reason": "FinalizerHeld", "message": "held by example.com/hold"}, When: time.Unix(int64(i), 0).UTC()})
	}
	raw, err := json.Marshal(items)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sortKeys", func(b *testing.B) {
		for range b.N {
			if _, err := sortKeys(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("roundTrip", func(b *testing.B) {
		for range b.N {
			roundTrip(b, raw)
		}
	})
}
