package finalizers

import "regexp"

// schemeURIRe matches a value with a scheme (`persistent://tenant/ns/topic`, `kafka://…`,
// `aws:///…`): an address in some system's own namespace.
var schemeURIRe = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://\S+$`)

// identityKeys are the names under which a field says what the object itself is, not what it
// uses: its name, id or external name.
var identityKeys = map[string]bool{"name": true, "id": true, "externalname": true, "externalid": true, "identifier": true}

// recordedIdentity names the thing outside the cluster that the object stands for: a value
// with a scheme in a field directly under spec or status whose name is the object's identity
// (`spec.name: persistent://public/default/order-events`, `status.id: …`). That is what the
// object's controller created for it and deletes with it, so a strip leaves it behind. A URI
// anywhere else is configuration: a field named for a location (`storageUri`, `adminServiceURL`,
// an endpoint) or nested under a part of the spec (a source, a connection, a reference) is an
// address the object reads from or calls, never something it made. "" when it is not one.
func recordedIdentity(path []string, key, value string) string {
	if len(path) != 2 || (path[0] != "spec" && path[0] != "status") || !identityKeys[key] {
		return ""
	}
	if !schemeURIRe.MatchString(value) {
		return ""
	}
	return "external resource"
}
