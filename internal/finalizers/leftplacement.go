package finalizers

import (
	"regexp"
	"strings"
)

// placementIDRe matches the ids of the networks a cloud resource is placed into: a subnet, a
// security group, a VPC.
var placementIDRe = regexp.MustCompile(`^(subnet|sg|vpc)-[0-9a-f]{8,}$`)

// placementInSpec reports whether a field of the spec holds the id of a network the object's
// resources are placed into (`spec.platform.aws.subnet.id: subnet-…`, `securityGroups[].id:
// sg-…`): what the object uses, which existed before it and outlives it, not something its
// controller made. Only a status records a network the controller created (a VPC an operator
// made for a cluster records its id there).
func placementInSpec(path []string, value string) bool {
	return len(path) > 0 && path[0] == "spec" && placementIDRe.MatchString(strings.TrimSpace(value))
}
