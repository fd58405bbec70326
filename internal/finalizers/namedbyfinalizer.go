package finalizers

import "slices"

// finalizerNamesWorkload reports whether a finalizer without a domain is, whole, the name of a
// workload: its own name, or the value of its `app`, `app.kubernetes.io/name` or
// `app.kubernetes.io/component` label (`kube-ovn-controller`, the finalizer Kube-OVN's
// Deployment kube-ovn-controller puts on its Subnets). A controller that writes a bare finalizer
// most often writes its own name.
func finalizerNamesWorkload(name string, w workload) bool {
	if name == "" {
		return false
	}
	return slices.Contains([]string{w.ref.Name, w.labels["app"], w.labels["app.kubernetes.io/name"], w.labels["app.kubernetes.io/component"]}, name)
}

// apartByFinalizerName ranks first, among the tied candidates of a finalizer without a domain,
// the one workload the finalizer's whole name names (finalizerNamesWorkload), and lists apart
// the candidates that run as its service account: their ties through RBAC are that account's
// and say nothing about which of them removes the finalizer, while the finalizer's name says it
// is this one's (ovn-central, which shares Kube-OVN's account ovn, is no second remover of
// `kube-ovn-controller`). When no candidate, or more than one, is named, nothing changes.
func apartByFinalizerName(tied []Controller, byRef map[string]workload, name, what string) (kept, apart []Controller) {
	named := -1
	for i, c := range tied {
		if w, ok := byRef[c.Object.String()]; ok && c.Found && finalizerNamesWorkload(name, w) {
			if named >= 0 {
				return tied, nil
			}
			named = i
		}
	}
	if named < 0 {
		return tied, nil
	}
	first := tied[named]
	first.Evidence = append(slices.Clone(first.Evidence), "the finalizer's whole name is this workload's name or app label: a controller that writes a finalizer without a domain writes its own name, which ranks it first")
	ordered := append([]Controller{first}, slices.Delete(slices.Clone(tied), named, named+1)...)
	spec := map[string]int{first.Object.String(): 1}
	return apartSharingAccount(ordered, byRef, spec, what)
}
