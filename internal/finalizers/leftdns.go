package finalizers

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// dnsRecordKeys are the status fields that hold the name of a DNS record a controller published
// (`status.dnsName` of a DNS entry, `fqdn`, `recordName`).
var dnsRecordKeys = map[string]bool{"dnsname": true, "fqdn": true, "recordname": true}

// dnsZoneKeys are the fields beside it that name the zone it was published in.
var dnsZoneKeys = []string{"zone", "zoneId", "zoneID", "hostedZoneId", "hostedZoneID", "zoneName"}

// recordedDNS names a DNS record the object's status says was published: a status field of
// dnsRecordKeys holding a DNS name of two labels or more (`shop.apps.example.org`). Only the
// status counts: a name the spec asks for may never have been published, and a list of names
// (`dnsNames` of a certificate) names no record.
func recordedDNS(path []string, key, value string) string {
	if len(path) < 2 || path[0] != "status" || !dnsRecordKeys[key] {
		return ""
	}
	name := strings.TrimSuffix(strings.TrimPrefix(value, "*."), ".")
	if !strings.Contains(name, ".") || len(validation.IsDNS1123Subdomain(strings.ToLower(name))) > 0 {
		return ""
	}
	return "DNS record"
}

// dnsZone returns the zone the fields beside a DNS record's name say it lives in; "" when none
// does.
func dnsZone(parent map[string]any) string {
	for _, k := range dnsZoneKeys {
		if z, ok := parent[k].(string); ok && z != "" {
			return z
		}
	}
	return ""
}
