package report

import (
	"testing"
	"time"
)

func TestEnvelope(t *testing.T) {
	var e Envelope
	e.Sign("why-terminating")
	fixed := Clock(func() time.Time { return time.Date(2026, 12, 1, 19, 42, 3, 999, time.FixedZone("CET", 3600)) })
	e.Stamp(fixed.Now())
	if e.Reporter.Name != "why-terminating" || e.Reporter.Version == "" {
		t.Errorf("reporter %+v", e.Reporter)
	}
	// UTC, to the second, RFC 3339.
	if e.Timestamp != "2026-12-01T18:42:03Z" {
		t.Errorf("timestamp %q", e.Timestamp)
	}
	var system Clock
	if d := time.Since(system.Now()); d < 0 || d > time.Minute {
		t.Errorf("a nil clock is not the system's: %v", d)
	}
}

func TestReasonValid(t *testing.T) {
	for _, tc := range []struct {
		code Reason
		ok   bool
	}{
		{"pvc-protection-pod", true},
		{"cycle", true},
		{"crd-v1", true},
		{"PVCProtection", false},
		{"pvc_protection", false},
		{"-pvc", false},
		{"pvc--pod", false},
		{"", false},
	} {
		t.Run(string(tc.code), func(t *testing.T) {
			if tc.code.Valid() != tc.ok {
				t.Errorf("Valid(%q) = %v", tc.code, !tc.ok)
			}
		})
	}
}

func TestDocumented(t *testing.T) {
	md := []byte("| code | source | on | meaning |\n|---|---|---|---|\n" +
		"| `pvc-protection-pod` | why-terminating | blocker | a pod mounts the claim |\n" +
		"| not a code | x | y | z |\n")
	got, err := Documented(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["pvc-protection-pod"].Source != "why-terminating" || got["pvc-protection-pod"].Where != "blocker" {
		t.Errorf("documented = %+v", got)
	}
	if _, err := Documented(append(md, md...)); err == nil {
		t.Error("a code documented twice is accepted")
	}
}
