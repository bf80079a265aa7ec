module github.com/etlink/etlink

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/pflag v1.1.0
	golang.org/x/arch v0.33.0
	golang.org/x/text v0.44.0
)
