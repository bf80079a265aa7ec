// Package auditwheel decodes auditwheel's policy files
// (manylinux-policy.json, musllinux-policy.json): what policy/gen writes
// tables.go from, and what policy's tests hold tables.go to.
package auditwheel

import "encoding/json"

// Policy is one entry of a policy file.
type Policy struct {
	Name     string   `json:"name"`
	Aliases  []string `json:"aliases"`
	Priority int      `json:"priority"`
	// Versions are the symbol versions allowed, by architecture and
	// namespace (GLIBC: 2.2.5, 2.3 ...).
	Versions  map[string]map[string][]string `json:"symbol_versions"`
	Whitelist []string                       `json:"lib_whitelist"`
	Blacklist map[string][]string            `json:"blacklist"`
}

// Decode reads a policy file.
func Decode(data []byte) ([]Policy, error) {
	var ps []Policy
	err := json.Unmarshal(data, &ps)
	return ps, err
}
