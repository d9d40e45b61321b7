package service

import "strings"

// Redact returns s with the password of a URL's user info, and the value of a "password" query
// parameter, replaced by "xxxxx"; the rest is left byte for byte. Strings without "://" are
// returned unchanged.
func Redact(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth, after := rest[:end], rest[end:]
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		if c := strings.Index(auth[:at], ":"); c >= 0 {
			auth = auth[:c] + ":xxxxx" + auth[at:]
		}
	}
	return s[:i+3] + auth + redactQuery(after)
}

// redactQuery masks password=... in the query part of a URL's remainder.
func redactQuery(s string) string {
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	path, query := s[:q+1], s[q+1:]
	frag := ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok && strings.EqualFold(k, "password") {
			parts[i] = k + "=xxxxx"
		}
	}
	return path + strings.Join(parts, "&") + frag
}
