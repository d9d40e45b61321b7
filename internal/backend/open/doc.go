// Package open chooses a backend by URL scheme, so the rest of iobench names services by URL
// only:
//
//	open.Broker: amqp://, amqps:// (package amqp), nats:// (package nats)
//	open.SQL:    postgres://, postgresql:// (package postgres), sqlite: (package sqlite;
//	             sqlite://relative/path.db, sqlite:///abs/path.db, sqlite::memory:)
//
// An unknown scheme is a one-line error that lists the supported ones.
package open
