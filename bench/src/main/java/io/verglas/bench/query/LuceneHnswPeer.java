package io.verglas.bench.query;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * The peer: Lucene's HNSW (M = 16, beam width 100 at build) over the same vectors, in memory,
 * one segment so that document ids are the vectors' ordinals, searched from one thread. The
 * search beam is the query's k (Lucene's {@code KnnFloatVectorQuery} explores k candidates per
 * layer), and the top 10 of it are the answer.
 */
final class LuceneHnswPeer implements AutoCloseable {
  static final int M = 16;
  static final int BEAM_WIDTH = 100;
  private static final String FIELD = "v";

  private final ByteBuffersDirectory directory = new ByteBuffersDirectory();
  private final DirectoryReader reader;
  private final IndexSearcher searcher;

  LuceneHnswPeer(List<float[]> vectors) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig()
        .setCodec(new Lucene912Codec() {
          @Override
          public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
            return new Lucene99HnswVectorsFormat(M, BEAM_WIDTH);
          }
        })
        .setRAMBufferSizeMB(2048)
        .setMaxBufferedDocs(IndexWriterConfig.DISABLE_AUTO_FLUSH);
    try (IndexWriter writer = new IndexWriter(directory, config)) {
      for (float[] vector : vectors) {
        Document doc = new Document();
        doc.add(new KnnFloatVectorField(FIELD, vector, VectorSimilarityFunction.EUCLIDEAN));
        writer.addDocument(doc);
      }
      writer.commit();
    }
    this.reader = DirectoryReader.open(directory);
    if (reader.leaves().size() != 1) {
      throw new IllegalStateException("Cannot measure Lucene HNSW: " + reader.leaves().size()
          + " segments, expected one");
    }
    this.searcher = new IndexSearcher(reader);
  }

  /** Bytes of the index files (vectors, graph, metadata). */
  long sizeInBytes() throws IOException {
    long bytes = 0;
    for (String file : directory.listAll()) {
      bytes += directory.fileLength(file);
    }
    return bytes;
  }

  /** The ordinals of the {@code k} nearest, from a search with beam {@code ef}. */
  int[] search(float[] query, int k, int ef) throws IOException {
    TopDocs top = searcher.search(new KnnFloatVectorQuery(FIELD, query, ef), k);
    int[] ordinals = new int[top.scoreDocs.length];
    int i = 0;
    for (ScoreDoc doc : top.scoreDocs) {
      ordinals[i++] = doc.doc;
    }
    return ordinals;
  }

  @Override
  public void close() throws IOException {
    reader.close();
    directory.close();
  }
}
