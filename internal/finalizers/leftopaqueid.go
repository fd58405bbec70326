package finalizers

import "regexp"

// opaqueIDRe matches an identifier another system handed out: a hexadecimal token of 16 to 64
// digits (`620b9d3c1bc5b8429d6d2d7a`) or a UUID.
var opaqueIDRe = regexp.MustCompile(`^([0-9a-f]{16,64}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})$`)

// recordedOpaqueID names the thing outside the cluster whose identifier the object's status
// records as its own identity: `status.id` (or externalID, identifier) directly under status,
// holding an opaque id another system issued. The controller wrote it when it created that
// thing for the object, and deletes it with the object, so a strip leaves it behind. The spec's
// id is what the user chose, and a name is no id: neither is named. "" when it is not one.
func recordedOpaqueID(path []string, key, value string) string {
	if len(path) != 2 || path[0] != "status" || key == "name" || key == "externalname" || !identityKeys[key] {
		return ""
	}
	if !opaqueIDRe.MatchString(value) {
		return ""
	}
	return "external resource"
}
