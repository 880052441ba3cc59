package acidsql.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Spark's SQL parser over many statements in one call from Python (one py4j round trip, not one
 * per statement): tests/sql/test_spark_parser_parity.py compiles it with javac and loads it beside
 * the test session's classes. Reflection only, so it compiles against the JDK alone.
 */
public final class ParserOracle {
  private ParserOracle() {}

  /**
   * The statements are joined by {@code separator}; so is the answer, one entry per statement:
   * "ok", or "error TAB errorClass TAB line TAB startPosition" (line and position empty when
   * Spark gives none).
   */
  public static String parseAll(Object parser, String joined, String separator) throws Exception {
    Method parsePlan = parser.getClass().getMethod("parsePlan", String.class);
    String[] statements = joined.split(java.util.regex.Pattern.quote(separator), -1);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < statements.length; i++) {
      if (i > 0) {
        out.append(separator);
      }
      try {
        parsePlan.invoke(parser, statements[i]);
        out.append("ok");
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        out.append("error\t").append(call(cause, "getErrorClass")).append('\t')
            .append(option(cause, "line")).append('\t').append(option(cause, "startPosition"));
      }
    }
    return out.toString();
  }

  private static String call(Object target, String name) {
    try {
      Object value = target.getClass().getMethod(name).invoke(target);
      return value == null ? "" : value.toString();
    } catch (Exception e) {
      return "";
    }
  }

  private static String option(Object target, String name) {
    try {
      Object value = target.getClass().getMethod(name).invoke(target);
      if ((Boolean) value.getClass().getMethod("isDefined").invoke(value)) {
        return value.getClass().getMethod("get").invoke(value).toString();
      }
    } catch (Exception e) {
      // no such field on this exception: Spark gives no position
    }
    return "";
  }
}
