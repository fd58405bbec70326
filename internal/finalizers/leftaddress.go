package finalizers

import (
	"net"
	"strings"
)

// virtualIPWords are field names under which an address is one a load balancer, a router or a
// cloud answers on for the object: a virtual IP, a floating or elastic IP. Such an address is
// configured outside the cluster (on an appliance, in a cloud account) and stays there when the
// finalizer that would release it is stripped.
var virtualIPWords = []string{"vip", "virtualip", "floatingip", "elasticip", "publicip", "reservedip"}

// recordedAddress names what an address field holds outside the cluster: "virtual IP" for an IP
// address under a field named for one (`spec.vip`, `status.vips[].ip`, `floatingIP`), "" for
// anything else (a pod or node IP is the cluster's own and goes with it).
func recordedAddress(path []string, key, value string) string {
	if net.ParseIP(value) == nil {
		return ""
	}
	for _, p := range path {
		p = strings.ToLower(p)
		for _, w := range virtualIPWords {
			if p == w || p == w+"s" || p == w+"address" {
				return "virtual IP"
			}
		}
	}
	return ""
}
