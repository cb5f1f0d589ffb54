// Package pgscript reads and runs users' own scripts in pgbench's script
// language, so that the same files run in pgbench and in stampede: SQL
// commands ended by a semicolon (several in one with \;), the
// meta-commands \set (with pgbench's expressions, package expr), \sleep,
// \if, \elif, \else and \endif, \gset and \aset after a query, and :name
// substituted by a variable's value. \shell and \setshell, which run
// programs, are refused, and so are pipelines.
//
// A Script is parsed once (Parse); a Program binds several weighted
// scripts to one table of variables (Compile); a Client runs a chosen
// script on one connection (Client.Run), recording every statement's
// latency under its name: the `-- name: NAME` comment above it, else
// FILE:LINE.
package pgscript
