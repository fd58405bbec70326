package finalizers

import "testing"

func TestRecreatedEventWords(t *testing.T) {
	dep := ObjectRef{Resource: "pods", Namespace: "shop", Name: "python-custom-autoscaler"}
	for _, c := range []struct {
		reason, message string
		want            bool
	}{
		{"Created", "Created Pod shop/python-custom-autoscaler", true},
		{"SuccessfulCreate", "Created pod: python-custom-autoscaler", true},
		{"Normal", "Recreated python-custom-autoscaler", true},
		// Not making it, or not this dependent.
		{"Deleted", "Deleted Pod shop/python-custom-autoscaler", false},
		{"Created", "Created Pod shop/python-custom-autoscaler-2", false},
		{"CreateFailed", "could not create python-custom-autoscaler", false},
	} {
		first := ""
		if f := splitFirst(c.message); f != "" {
			first = f
		}
		got := (createdRe.MatchString(c.reason) || createdRe.MatchString(first)) && namesDependent(c.message, dep)
		if got != c.want {
			t.Errorf("event %s %q: re-creates %s = %v, want %v", c.reason, c.message, dep, got, c.want)
		}
	}
}
