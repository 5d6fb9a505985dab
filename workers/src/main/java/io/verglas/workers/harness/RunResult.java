package io.verglas.workers.harness;

/** A run that ended: its commits (each absorbed or not) and the rows they held. */
public record RunResult(String runId, int commits, long rows) {}
