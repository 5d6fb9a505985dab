package io.verglas.sdk;

/** One commit of a table and the rows it changed (its delta from its parent snapshot). */
public record TableChange(TableCommit commit, TableDelta delta) {}
