package io.verglas.cache.origin;

/** A part named in CompleteMultipartUpload: its number and the ETag UploadPart returned. */
public record CompletedPart(int partNumber, String etag) {}
