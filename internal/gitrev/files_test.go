package gitrev

import "testing"

// Within is true of the root and of what lies under it, never of a sibling sharing its prefix.
func TestWithin(t *testing.T) {
	for p, want := range map[string]bool{"/r": true, "/r/a": true, "/r/a/b": true, "/r/": true,
		"/rx": false, "/rx/a": false, "/": false, "": false, "/q/r": false, "r": false} {
		if got := Within("/r", p); got != want {
			t.Errorf("Within(/r, %q) = %v, want %v", p, got, want)
		}
	}
}
