package cmake

// String commands: string(), get_filename_component(),
// cmake_parse_arguments() and CMake's regular expressions.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// cmakeRegexp compiles a CMake regular expression (a POSIX ERE subset:
// ^ $ . [] * + ? | () and no backreferences) with Go's engine, which reads
// every one of them alike.
func cmakeRegexp(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%q is not a regular expression etlink reads: %v", expr, err)
	}
	return re, nil
}

// cmakeReplacement turns CMake's \1 references into Go's ${1}.
func cmakeReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if r[i] == '\\' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9' {
			b.WriteString("${" + string(r[i+1]) + "}")
			i++
			continue
		}
		if r[i] == '$' {
			b.WriteString("$$")
			continue
		}
		b.WriteByte(r[i])
	}
	return b.String()
}

func (e *evaluator) cmdString(c *ctx, cmd *Command, args []xarg) {
	if len(args) < 2 {
		return
	}
	sub := args[0].val
	// result computes a string result from inputs, carrying the marks.
	result := func(out int, inputs []string, f func([]string) string) {
		if out >= len(args) || hasUnknown(args[out].val) {
			return
		}
		dflt := false
		for k, in := range inputs {
			if hasUnknown(in) {
				e.setUnknown(c, args[out].val)
				return
			}
			if undecided(in) {
				dflt = true
			}
			inputs[k] = stripMarks(in)
		}
		v := f(inputs)
		if dflt {
			v = markEach(v, markDefault)
		}
		e.setVar(c, cmd, stripMarks(args[out].val), v)
	}
	concat := func(in []string) string { return strings.Join(in, "") }
	switch sub {
	case "APPEND", "PREPEND":
		name := stripMarks(args[1].val)
		cur, st := e.variable(c.sc, name)
		if st == varUnknown {
			cur = ""
		}
		in := append([]string{cur}, vals(args[2:])...)
		if sub == "PREPEND" {
			in = append(vals(args[2:]), cur)
		}
		result(1, in, concat)
	case "CONCAT":
		result(1, vals(args[2:]), concat)
	case "JOIN":
		if len(args) < 3 {
			return
		}
		glue := args[1].val
		result(2, vals(args[3:]), func(in []string) string { return strings.Join(in, stripMarks(glue)) })
	case "TOLOWER", "TOUPPER", "STRIP", "LENGTH":
		if len(args) < 3 {
			return
		}
		result(2, []string{args[1].val}, func(in []string) string {
			switch sub {
			case "TOLOWER":
				return strings.ToLower(in[0])
			case "TOUPPER":
				return strings.ToUpper(in[0])
			case "STRIP":
				return strings.TrimSpace(in[0])
			}
			return strconv.Itoa(len(in[0]))
		})
	case "REPLACE":
		if len(args) < 4 {
			return
		}
		in := append([]string{args[1].val, args[2].val}, vals(args[4:])...)
		result(3, in, func(in []string) string {
			if in[0] == "" {
				return strings.Join(in[2:], "")
			}
			return strings.ReplaceAll(strings.Join(in[2:], ""), in[0], in[1])
		})
	case "REGEX":
		e.stringRegex(c, cmd, args, result)
	case "FIND", "COMPARE", "SUBSTRING":
		switch sub {
		case "FIND":
			e.unknownAt(c, args, 3)
		default:
			e.unknownAt(c, args, 4)
		}
	case "MAKE_C_IDENTIFIER", "GENEX_STRIP", "CONFIGURE", "HEX", "REPEAT":
		if sub == "REPEAT" {
			e.unknownAt(c, args, 3)
		} else {
			e.unknownAt(c, args, 2)
		}
	case "MD5", "SHA1", "SHA256", "SHA512", "TIMESTAMP", "UUID", "JSON", "RANDOM", "ASCII":
		if sub == "RANDOM" || sub == "ASCII" {
			e.unknownAt(c, args, len(args)-1)
		} else {
			e.unknownAt(c, args, 1)
		}
	}
}

// stringRegex is string(REGEX MATCH|MATCHALL <regex> <out> <input>...) and
// string(REGEX REPLACE <regex> <replacement> <out> <input>...); result
// carries the inputs' marks as cmdString's other forms do.
func (e *evaluator) stringRegex(c *ctx, cmd *Command, args []xarg, result func(int, []string, func([]string) string)) {
	if len(args) < 4 {
		return
	}
	mode := args[1].val
	outAt, inAt := 3, 4
	if mode == "REPLACE" {
		outAt, inAt = 4, 5
	}
	if outAt >= len(args) || hasUnknown(args[2].val) {
		e.unknownAt(c, args, outAt)
		return
	}
	re, err := cmakeRegexp(stripMarks(args[2].val))
	if err != nil || mode == "REPLACE" && hasUnknown(args[3].val) {
		e.unknownAt(c, args, outAt)
		return
	}
	in := vals(args[min(inAt, len(args)):])
	switch mode {
	case "MATCH":
		result(outAt, in, func(in []string) string { return re.FindString(strings.Join(in, "")) })
	case "MATCHALL":
		result(outAt, in, func(in []string) string {
			return strings.Join(re.FindAllString(strings.Join(in, ""), -1), ";")
		})
	case "REPLACE":
		repl := cmakeReplacement(stripMarks(args[3].val))
		result(outAt, in, func(in []string) string { return re.ReplaceAllString(strings.Join(in, ""), repl) })
	default:
		e.unknownAt(c, args, outAt)
	}
}

func (e *evaluator) unknownAt(c *ctx, args []xarg, i int) {
	if i >= 0 && i < len(args) && !hasUnknown(args[i].val) {
		e.setUnknown(c, args[i].val)
	}
}

// cmdFilePath evaluates file(TO_CMAKE_PATH path var) and
// file(TO_NATIVE_PATH path var) as on Linux: backslashes become slashes and
// a search path's ":" separators list separators (eCAL normalises its
// CMAKE_MODULE_PATH so, before include() searches it). It reports whether
// it evaluated the call.
func (e *evaluator) cmdFilePath(c *ctx, args []xarg) bool {
	if len(args) != 3 || (args[0].val != "TO_CMAKE_PATH" && args[0].val != "TO_NATIVE_PATH") || hasUnknown(args[2].val) {
		return false
	}
	v := args[1].val
	if args[0].val == "TO_CMAKE_PATH" {
		v = strings.ReplaceAll(strings.ReplaceAll(v, `\`, "/"), ":", ";")
	}
	c.sc.set(stripMarks(args[2].val), v)
	return true
}

func (e *evaluator) cmdFilenameComponent(c *ctx, cmd *Command, args []xarg) {
	if len(args) < 3 || hasUnknown(args[0].val) {
		return
	}
	out := stripMarks(args[0].val)
	if hasUnknown(args[1].val) {
		e.setUnknown(c, out)
		return
	}
	p := stripMarks(args[1].val)
	base := filepath.Base(p)
	var v string
	switch args[2].val {
	case "DIRECTORY", "PATH":
		v = filepath.Dir(p)
	case "NAME":
		v = base
	case "EXT":
		if i := strings.Index(base, "."); i >= 0 {
			v = base[i:]
		}
	case "NAME_WE":
		if i := strings.Index(base, "."); i >= 0 {
			v = base[:i]
		} else {
			v = base
		}
	case "LAST_EXT":
		v = filepath.Ext(base)
	case "NAME_WLE":
		v = strings.TrimSuffix(base, filepath.Ext(base))
	case "ABSOLUTE", "REALPATH":
		v = p
		if !filepath.IsAbs(v) {
			v = filepath.Join(c.dir.src, v)
		}
		v = filepath.Clean(v)
	default:
		e.setUnknown(c, out)
		return
	}
	e.setVar(c, cmd, out, v)
}

// cmdParseArguments is cmake_parse_arguments, both forms:
//
//	cmake_parse_arguments(PREFIX "options" "one_value" "multi_value" args...)
//	cmake_parse_arguments(PARSE_ARGV N PREFIX "options" "one_value" "multi_value")
func (e *evaluator) cmdParseArguments(c *ctx, cmd *Command, args []xarg) {
	var prefix string
	var lists [3][]string
	var input []string
	if len(args) > 0 && args[0].is("PARSE_ARGV") {
		if len(args) < 6 {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: too few arguments", cmd)
			return
		}
		n, err := strconv.Atoi(args[1].val)
		argcVal, st := e.variable(c.sc, "ARGC")
		argc, err2 := strconv.Atoi(argcVal)
		if err != nil || err2 != nil || st != varSet {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: ARGC or N not known", cmd)
			return
		}
		for k := n; k < argc; k++ {
			v, _ := e.variable(c.sc, "ARGV"+strconv.Itoa(k))
			input = append(input, v)
		}
		prefix = stripMarks(args[2].val)
		for k := range 3 {
			lists[k] = splitList(stripMarks(args[3+k].val))
		}
	} else {
		if len(args) < 4 {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: too few arguments", cmd)
			return
		}
		prefix = stripMarks(args[0].val)
		for k := range 3 {
			lists[k] = splitList(stripMarks(args[1+k].val))
		}
		input = vals(args[4:])
	}
	const (
		kwOption = iota + 1
		kwOne
		kwMulti
	)
	kind := map[string]int{}
	for k, l := range lists {
		for _, kw := range l {
			kind[kw] = k + 1
		}
	}
	options := map[string]bool{}
	values := map[string][]string{}
	given := map[string]bool{}
	var unparsed []string
	current := ""
	for _, a := range input {
		if k := kind[a]; k != 0 {
			switch k {
			case kwOption:
				options[a] = true
				current = ""
			default:
				given[a] = true
				values[a] = nil
				current = a
			}
			continue
		}
		switch {
		case current == "":
			unparsed = append(unparsed, a)
		case kind[current] == kwOne:
			values[current] = []string{a}
			current = ""
		default:
			values[current] = append(values[current], a)
		}
	}
	setOrUnset := func(name string, v []string, ok bool) {
		if ok {
			e.setVar(c, cmd, prefix+"_"+name, strings.Join(v, ";"))
		} else {
			c.sc.vars[prefix+"_"+name] = binding{state: bindUnset}
		}
	}
	var missing []string
	for _, kw := range lists[0] {
		if options[kw] {
			c.sc.set(prefix+"_"+kw, "TRUE")
		} else {
			c.sc.set(prefix+"_"+kw, "FALSE")
		}
	}
	for _, l := range lists[1:] {
		for _, kw := range l {
			v := values[kw]
			if given[kw] && len(v) == 0 {
				missing = append(missing, kw)
			}
			setOrUnset(kw, v, len(v) > 0)
		}
	}
	setOrUnset("UNPARSED_ARGUMENTS", unparsed, len(unparsed) > 0)
	setOrUnset("KEYWORDS_MISSING_VALUES", missing, len(missing) > 0)
}
