package bus

import (
	"context"
	"fmt"

	"github.com/iobench/iobench/internal/backend"
)

// CreateTableSQL is the seed's table.
const CreateTableSQL = "CREATE TABLE IF NOT EXISTS customers (id uuid PRIMARY KEY, name varchar NOT NULL, email varchar NOT NULL)"

// schemaQueries check an existing customers table: each query must return want.
type schemaQuery struct {
	sql  string
	want int64
}

var (
	tableExists = map[string]string{
		"postgres": "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'customers'",
		"sqlite":   "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'customers'",
	}
	schemaChecks = map[string][]schemaQuery{
		"postgres": {
			{"SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'customers'", 3},
			{`SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'customers' AND (
				(column_name = 'id' AND data_type = 'uuid') OR
				(column_name IN ('name', 'email') AND data_type = 'character varying' AND is_nullable = 'NO'))`, 3},
			{`SELECT count(*) FROM information_schema.table_constraints tc
				JOIN information_schema.key_column_usage k ON k.constraint_schema = tc.constraint_schema AND k.constraint_name = tc.constraint_name
				WHERE tc.table_schema = current_schema() AND tc.table_name = 'customers' AND tc.constraint_type = 'PRIMARY KEY'`, 1},
			{`SELECT count(*) FROM information_schema.table_constraints tc
				JOIN information_schema.key_column_usage k ON k.constraint_schema = tc.constraint_schema AND k.constraint_name = tc.constraint_name
				WHERE tc.table_schema = current_schema() AND tc.table_name = 'customers' AND tc.constraint_type = 'PRIMARY KEY' AND k.column_name = 'id'`, 1},
		},
		"sqlite": {
			{"SELECT count(*) FROM pragma_table_info('customers')", 3},
			{`SELECT count(*) FROM pragma_table_info('customers') WHERE
				(name = 'id' AND lower(type) = 'uuid' AND pk = 1) OR
				(name IN ('name', 'email') AND lower(type) = 'varchar' AND "notnull" = 1)`, 3},
			{"SELECT count(*) FROM pragma_table_info('customers') WHERE pk > 0", 1},
		},
	}
	truncateSQL = map[string]string{
		"postgres": "TRUNCATE customers",
		"sqlite":   "DELETE FROM customers",
	}
)

// prepareTable checks an existing customers table against the seed schema (a table of another
// shape is refused, never altered), creates it when missing, and empties it: a run owns the table.
func prepareTable(ctx context.Context, db backend.SQL, kind string) error {
	n, err := db.QueryInt(ctx, tableExists[kind])
	if err != nil {
		return fmt.Errorf("%s: cannot read the schema: %w", kind, err)
	}
	if n > 0 {
		for _, q := range schemaChecks[kind] {
			got, err := db.QueryInt(ctx, q.sql)
			if err != nil {
				return fmt.Errorf("%s: cannot read the schema of customers: %w", kind, err)
			}
			if got != q.want {
				return fmt.Errorf("%w: %s: a customers table exists with another schema (want id uuid PRIMARY KEY, name varchar NOT NULL, email varchar NOT NULL); drop it or point --database-url at another database",
					ErrBadInput, kind)
			}
		}
	} else if _, err := db.Exec(ctx, CreateTableSQL); err != nil {
		return fmt.Errorf("%s: cannot create the customers table: %w", kind, err)
	}
	if _, err := db.Exec(ctx, truncateSQL[kind]); err != nil {
		return fmt.Errorf("%s: cannot empty the customers table: %w", kind, err)
	}
	return nil
}

// countRows returns the rows of customers and the distinct ids among them.
func countRows(ctx context.Context, db backend.SQL) (rows, distinct int64, err error) {
	if rows, err = db.QueryInt(ctx, "SELECT count(*) FROM customers"); err != nil {
		return 0, 0, fmt.Errorf("counting rows: %w", err)
	}
	if distinct, err = db.QueryInt(ctx, "SELECT count(DISTINCT id) FROM customers"); err != nil {
		return 0, 0, fmt.Errorf("counting distinct ids: %w", err)
	}
	return rows, distinct, nil
}

// poolHeadroom is what a run leaves beside the consumer's pool: iobench's own connections (the
// table checks and counts) and a margin for sessions of a killed consumer still closing.
const poolHeadroom = 5

// checkMaxConnections reads PostgreSQL's max_connections and refuses a run whose consumer pool
// (concurrency connections) would not fit beside iobench's own.
func checkMaxConnections(ctx context.Context, db backend.SQL, pool int) (int64, error) {
	max, err := db.QueryInt(ctx, "SELECT current_setting('max_connections')::int")
	if err != nil {
		return 0, fmt.Errorf("postgres: cannot read max_connections: %w", err)
	}
	if int64(pool+poolHeadroom) > max {
		return max, fmt.Errorf("%w: postgres: max_connections is %d, too few for the consumer's pool of %d and iobench's %d; raise max_connections or lower --concurrency",
			ErrBadInput, max, pool, poolHeadroom)
	}
	return max, nil
}
