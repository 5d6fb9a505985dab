package io.verglas.cli.flink;

/** One line of {@code GET /jobs/overview}: a job's id, name, state, start and duration (ms). */
public record JobSummary(String id, String name, String state, long startTime, long durationMillis) {}
