package cmake

// list(): CMake's list subcommands, on known and unknown values.

import (
	"regexp"
	"strconv"
	"strings"
)

func (e *evaluator) cmdList(c *ctx, cmd *Command, args []xarg) {
	if len(args) < 2 || hasUnknown(args[1].val) {
		return
	}
	sub, name := args[0].val, stripMarks(args[1].val)
	cur, st := e.variable(c.sc, name)
	items := splitListKeepEmpty(cur)
	rest := vals(args[2:])
	unknownList := st == varUnknown
	set := func(v []string) { e.setVar(c, cmd, name, strings.Join(v, ";")) }
	out := func(i int, v string) {
		if i < len(args) && !hasUnknown(args[i].val) {
			e.setVar(c, cmd, stripMarks(args[i].val), v)
		}
	}
	outUnknown := func(i int) {
		if i < len(args) {
			e.setUnknown(c, args[i].val)
		}
	}
	switch sub {
	case "APPEND", "PREPEND":
		e.noteOrigin(cmd, name, rest)
		// A list the tree never set starts empty: list(APPEND) is how
		// lists are built.
		if len(rest) == 0 {
			if unknownList {
				set(nil)
			}
			return
		}
		if sub == "APPEND" {
			set(append(items, rest...))
		} else {
			set(append(rest, items...))
		}
	case "INSERT":
		if len(rest) < 1 {
			return
		}
		idx, err := strconv.Atoi(rest[0])
		if err != nil || idx < 0 || idx > len(items) {
			e.setUnknown(c, name)
			return
		}
		set(append(append(append([]string(nil), items[:idx]...), rest[1:]...), items[idx:]...))
	case "REMOVE_ITEM":
		if unknownList {
			return
		}
		drop := map[string]bool{}
		for _, r := range rest {
			drop[r] = true
		}
		var kept []string
		for _, it := range items {
			if !drop[it] {
				kept = append(kept, it)
			}
		}
		set(kept)
	case "REMOVE_DUPLICATES":
		seen := map[string]bool{}
		var kept []string
		for _, it := range items {
			if !seen[it] {
				seen[it] = true
				kept = append(kept, it)
			}
		}
		if !unknownList {
			set(kept)
		}
	case "REVERSE":
		for l, r := 0, len(items)-1; l < r; l, r = l+1, r-1 {
			items[l], items[r] = items[r], items[l]
		}
		if !unknownList {
			set(items)
		}
	case "LENGTH":
		if unknownList || undecided(cur) {
			outUnknown(2)
			return
		}
		out(2, strconv.Itoa(len(items)))
	case "GET":
		if len(args) < 4 || unknownList {
			outUnknown(len(args) - 1)
			return
		}
		var got []string
		for _, s := range rest[:len(rest)-1] {
			idx, err := strconv.Atoi(s)
			if idx < 0 {
				idx += len(items)
			}
			if err != nil || idx < 0 || idx >= len(items) {
				outUnknown(len(args) - 1)
				return
			}
			got = append(got, items[idx])
		}
		out(len(args)-1, strings.Join(got, ";"))
	case "JOIN":
		if len(args) < 4 || unknownList {
			outUnknown(3)
			return
		}
		out(3, strings.Join(items, args[2].val))
	case "FIND":
		if len(args) < 4 || unknownList || undecided(cur) {
			outUnknown(3)
			return
		}
		found := -1
		for k, it := range items {
			if it == args[2].val {
				found = k
				break
			}
		}
		out(3, strconv.Itoa(found))
	case "POP_BACK", "POP_FRONT":
		if unknownList {
			for k := 2; k < len(args); k++ {
				outUnknown(k)
			}
			return
		}
		for k := 2; k < len(args) && len(items) > 0; k++ {
			if sub == "POP_BACK" {
				out(k, items[len(items)-1])
				items = items[:len(items)-1]
			} else {
				out(k, items[0])
				items = items[1:]
			}
		}
		if len(args) == 2 && len(items) > 0 {
			if sub == "POP_BACK" {
				items = items[:len(items)-1]
			} else {
				items = items[1:]
			}
		}
		set(items)
	case "FILTER":
		// list(FILTER <list> INCLUDE|EXCLUDE REGEX <regex>)
		if unknownList || len(rest) != 3 || rest[1] != "REGEX" || (rest[0] != "INCLUDE" && rest[0] != "EXCLUDE") {
			e.setUnknown(c, name)
			return
		}
		re, err := cmakeRegexp(rest[2])
		if err != nil {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: %v", cmd, err)
			e.setUnknown(c, name)
			return
		}
		var kept []string
		for _, it := range items {
			// An item etlink could not evaluate may match or not: kept,
			// still unknown.
			if undecided(it) || re.MatchString(it) == (rest[0] == "INCLUDE") {
				kept = append(kept, it)
			}
		}
		set(kept)
	case "TRANSFORM":
		e.listTransform(c, cmd, name, items, unknownList, args)
	case "SUBLIST", "SORT", "REMOVE_AT":
		for k, a := range args {
			if a.is("OUTPUT_VARIABLE") {
				outUnknown(k + 1)
				return
			}
		}
		if sub == "SUBLIST" {
			outUnknown(4)
			return
		}
		e.setUnknown(c, name)
	}
}

// listTransform is list(TRANSFORM <list> <ACTION> [REGEX <regex>]
// [OUTPUT_VARIABLE <out>]) for the actions APPEND, PREPEND, TOLOWER,
// TOUPPER, STRIP and REPLACE; the AT and FOR selectors and GENEX_STRIP
// leave the result unknown.
func (e *evaluator) listTransform(c *ctx, cmd *Command, name string, items []string, unknownList bool, args []xarg) {
	rest := vals(args[2:])
	out := name
	for k, a := range rest {
		if a == "OUTPUT_VARIABLE" && k+1 < len(rest) {
			out, rest = stripMarks(rest[k+1]), rest[:k]
			break
		}
	}
	if len(rest) == 0 || unknownList {
		e.setUnknown(c, out)
		return
	}
	action, rest := rest[0], rest[1:]
	var arg []string
	switch action {
	case "APPEND", "PREPEND":
		if len(rest) < 1 {
			e.setUnknown(c, out)
			return
		}
		arg, rest = rest[:1], rest[1:]
	case "REPLACE":
		if len(rest) < 2 {
			e.setUnknown(c, out)
			return
		}
		arg, rest = rest[:2], rest[2:]
	case "TOLOWER", "TOUPPER", "STRIP":
	default:
		e.setUnknown(c, out)
		return
	}
	var sel *regexp.Regexp
	switch {
	case len(rest) == 2 && rest[0] == "REGEX":
		var err error
		if sel, err = cmakeRegexp(rest[1]); err != nil {
			e.setUnknown(c, out)
			return
		}
	case len(rest) > 0:
		e.setUnknown(c, out)
		return
	}
	var replace *regexp.Regexp
	if action == "REPLACE" {
		var err error
		if replace, err = cmakeRegexp(arg[0]); err != nil {
			e.setUnknown(c, out)
			return
		}
	}
	res := make([]string, len(items))
	for k, it := range items {
		res[k] = it
		if undecided(it) || sel != nil && !sel.MatchString(it) {
			continue
		}
		switch action {
		case "APPEND":
			res[k] = it + arg[0]
		case "PREPEND":
			res[k] = arg[0] + it
		case "TOLOWER":
			res[k] = strings.ToLower(it)
		case "TOUPPER":
			res[k] = strings.ToUpper(it)
		case "STRIP":
			res[k] = strings.TrimSpace(it)
		case "REPLACE":
			res[k] = replace.ReplaceAllString(it, cmakeReplacement(arg[1]))
		}
	}
	e.setVar(c, cmd, out, strings.Join(res, ";"))
}
