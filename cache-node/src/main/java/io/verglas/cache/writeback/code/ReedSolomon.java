package io.verglas.cache.writeback.code;

import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawErasureCoderFactory;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * Hadoop's pure-Java Reed–Solomon raw coder (the one HDFS erasure coding uses, {@code
 * RSRawErasureCoderFactory}): a systematic code over GF(2^8) with a Cauchy matrix, so any
 * {@code k} of the {@code k + m} fragments reconstruct the data. A coder holds per-erasure-pattern
 * state and is not thread-safe: each encoder and decoder here makes its own.
 */
final class ReedSolomon {
  private static final RSRawErasureCoderFactory FACTORY = new RSRawErasureCoderFactory();

  private ReedSolomon() {}

  static RawErasureEncoder encoder(Geometry geometry) {
    return FACTORY.createEncoder(options(geometry));
  }

  static RawErasureDecoder decoder(Geometry geometry) {
    return FACTORY.createDecoder(options(geometry));
  }

  private static ErasureCoderOptions options(Geometry geometry) {
    return new ErasureCoderOptions(geometry.dataFragments(), geometry.parityFragments());
  }
}
