package elfobj

import "encoding/json"

// MarshalJSON spells the ELF enums as readelf does, so scan's JSON reads
// without a table of constants.
func (o *Object) MarshalJSON() ([]byte, error) {
	type plain Object
	return json.Marshal(struct {
		*plain
		Class   string `json:"class"`
		Machine string `json:"machine"`
		Type    string `json:"type"`
	}{(*plain)(o), o.Class.String(), o.MachineName(), o.TypeName()})
}

// MarshalJSON adds the symbol's binding, type, visibility and whether it is
// defined and exported.
func (s Symbol) MarshalJSON() ([]byte, error) {
	type plain Symbol
	return json.Marshal(struct {
		plain
		Binding    string `json:"binding"`
		Type       string `json:"type"`
		Visibility string `json:"visibility"`
		Defined    bool   `json:"defined"`
		Exported   bool   `json:"exported"`
	}{plain(s), s.BindingName(), s.TypeName(), s.VisibilityName(), s.Defined(), s.Exported()})
}
