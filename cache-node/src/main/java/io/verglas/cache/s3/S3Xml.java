package io.verglas.cache.s3;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * S3 XML documents: a small streaming writer for responses and a hardened DOM parser for the
 * few request bodies S3 has (DeleteObjects, CompleteMultipartUpload, CreateBucket). The parser
 * refuses DOCTYPEs (no entity expansion, no external entities) and matches element names without
 * namespace prefixes, as clients differ in whether they send the S3 namespace.
 */
final class S3Xml {
  static final String NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/";

  private final StringBuilder out = new StringBuilder(256);
  private final Deque<String> open = new ArrayDeque<>();

  private S3Xml() {
    out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  }

  /** A document whose root element carries the S3 namespace. */
  static S3Xml document(String root) {
    S3Xml xml = new S3Xml();
    xml.out.append('<').append(root).append(" xmlns=\"").append(NAMESPACE).append("\">");
    xml.open.push(root);
    return xml;
  }

  /** A document whose root element has no namespace (the Error document). */
  static S3Xml plainDocument(String root) {
    S3Xml xml = new S3Xml();
    xml.out.append('<').append(root).append('>');
    xml.open.push(root);
    return xml;
  }

  S3Xml start(String name) {
    out.append('<').append(name).append('>');
    open.push(name);
    return this;
  }

  /** An element with attributes, written as given (constants only, never request data). */
  S3Xml startWithAttributes(String name, String attributes) {
    out.append('<').append(name).append(' ').append(attributes).append('>');
    open.push(name);
    return this;
  }

  S3Xml end() {
    out.append("</").append(open.pop()).append('>');
    return this;
  }

  /** An element with text; skipped when value is null. */
  S3Xml element(String name, String value) {
    if (value != null) {
      out.append('<').append(name).append('>');
      escape(value, out);
      out.append("</").append(name).append('>');
    }
    return this;
  }

  /** Text content of the innermost open element. */
  S3Xml text(String value) {
    escape(value, out);
    return this;
  }

  S3Xml element(String name, long value) {
    return element(name, Long.toString(value));
  }

  S3Xml element(String name, boolean value) {
    return element(name, Boolean.toString(value));
  }

  byte[] toBytes() {
    while (!open.isEmpty()) {
      end();
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  static void escape(String value, StringBuilder out) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        default -> {
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            out.append("&#x").append(Integer.toHexString(c)).append(';');
          } else {
            out.append(c);
          }
        }
      }
    }
  }

  /** Parses a request body; any problem is MalformedXML. */
  static Element parse(byte[] body) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setNamespaceAware(true);
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      factory.setXIncludeAware(false);
      factory.setExpandEntityReferences(false);
      DocumentBuilder builder = factory.newDocumentBuilder();
      builder.setErrorHandler(null);
      return builder.parse(new ByteArrayInputStream(body)).getDocumentElement();
    } catch (Exception e) {
      throw new S3Exception(S3ErrorCode.MALFORMED_XML,
          "The XML you provided was not well-formed or did not validate against our published"
              + " schema: " + e.getMessage());
    }
  }

  static String name(Element element) {
    return element.getLocalName() != null ? element.getLocalName() : element.getNodeName();
  }

  static List<Element> children(Element parent, String name) {
    List<Element> result = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && name.equals(name(e))) {
        result.add(e);
      }
    }
    return result;
  }

  /** Text of the first child element with this name, or null. */
  static String childText(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0).getTextContent();
  }
}
