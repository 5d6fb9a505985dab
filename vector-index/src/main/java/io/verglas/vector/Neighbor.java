package io.verglas.vector;

/** One search hit inside an index: the vector's ordinal and its similarity to the query. */
public record Neighbor(int ordinal, float score) {}
