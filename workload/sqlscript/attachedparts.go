package sqlscript

import "fmt"

// attachedPartsQuery continues partsQuery: the policies, statistics
// objects and publication memberships (FOR TABLE) of the relations $1,
// which go with a table when it is dropped, as on every workload's
// table. init's mark records the file's own; a user's made since is
// refused by cleanup sql and init sql --drop.
const attachedPartsQuery = `UNION ALL
SELECT p.polrelid, 'policy', p.oid::int8, quote_ident(p.polname), p.polname::text FROM pg_policy p WHERE p.polrelid = ANY($1)
UNION ALL
SELECT s.stxrelid, 'statistics', s.oid::int8, quote_ident(n.nspname) || '.' || quote_ident(s.stxname), s.stxname::text
  FROM pg_statistic_ext s JOIN pg_namespace n ON n.oid = s.stxnamespace WHERE s.stxrelid = ANY($1)
UNION ALL
SELECT r.prrelid, 'publication', r.oid::int8, quote_ident(b.pubname), b.pubname::text
  FROM pg_publication_rel r JOIN pg_publication b ON b.oid = r.prpubid WHERE r.prrelid = ANY($1)`

// line names p, a part of o that init's file did not make, in a
// refusal: "index u_idx on table a", "statistics object public.s on
// table a", "the membership of table a in publication p".
func (p part) line(o object) string {
	switch p.kind {
	case "statistics":
		return fmt.Sprintf("statistics object %s on %s %s", p.name, o.kindWord(), o.name)
	case "publication":
		return fmt.Sprintf("the membership of %s %s in publication %s", o.kindWord(), o.name, p.name)
	}
	return fmt.Sprintf("%s %s on %s %s", p.kind, p.name, o.kindWord(), o.name)
}

// subject is "it" for one thing and "they" for more: the subject of a
// refusal's verb ("and they would go with the table").
func subject(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}
