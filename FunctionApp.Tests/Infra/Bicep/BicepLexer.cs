using System.Text;

namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>
/// Splits Bicep source into tokens: enough of the language for the structural checks of infra/ (declarations,
/// objects, arrays, strings with interpolation, expressions). It is not the Bicep compiler, and says so by
/// throwing on anything it does not recognise.
/// </summary>
public static class BicepLexer
{
    private static readonly string[] MultiCharSymbols = ["==", "!=", "<=", ">=", "&&", "||", "??", "=~", "!~", "?.", "::"];

    public static IReadOnlyList<BicepToken> Tokenize(string source)
    {
        ArgumentNullException.ThrowIfNull(source);
        var tokens = new List<BicepToken>();
        var line = 1;
        var i = 0;
        while (i < source.Length)
        {
            var c = source[i];
            if (c == '\n')
            {
                tokens.Add(new BicepToken(BicepTokenKind.NewLine, "\n", line));
                line++;
                i++;
            }
            else if (c is ' ' or '\t' or '\r')
            {
                i++;
            }
            else if (c == '/' && Peek(source, i + 1) == '/')
            {
                while (i < source.Length && source[i] != '\n')
                {
                    i++;
                }
            }
            else if (c == '/' && Peek(source, i + 1) == '*')
            {
                var end = source.IndexOf("*/", i + 2, StringComparison.Ordinal);
                if (end < 0)
                {
                    throw new BicepSyntaxException($"Line {line}: unterminated block comment.");
                }

                line += source.AsSpan(i, end - i).Count('\n');
                i = end + 2;
            }
            else if (c == '\'' && source.AsSpan(i).StartsWith("'''", StringComparison.Ordinal))
            {
                var end = source.IndexOf("'''", i + 3, StringComparison.Ordinal);
                if (end < 0)
                {
                    throw new BicepSyntaxException($"Line {line}: unterminated multi-line string.");
                }

                tokens.Add(new BicepToken(BicepTokenKind.String, source[(i + 3)..end], line));
                line += source.AsSpan(i, end - i).Count('\n');
                i = end + 3;
            }
            else if (c == '\'')
            {
                var start = line;
                var text = ReadString(source, ref i, ref line);
                tokens.Add(new BicepToken(BicepTokenKind.String, text, start));
            }
            else if (char.IsAsciiLetter(c) || c == '_')
            {
                var start = i;
                while (i < source.Length && (char.IsAsciiLetterOrDigit(source[i]) || source[i] == '_'))
                {
                    i++;
                }

                tokens.Add(new BicepToken(BicepTokenKind.Identifier, source[start..i], line));
            }
            else if (char.IsAsciiDigit(c))
            {
                var start = i;
                while (i < source.Length && char.IsAsciiDigit(source[i]))
                {
                    i++;
                }

                tokens.Add(new BicepToken(BicepTokenKind.Number, source[start..i], line));
            }
            else if ("{}[](),:.?!=<>&|+-*/%@".Contains(c, StringComparison.Ordinal))
            {
                var symbol = MultiCharSymbols.FirstOrDefault(s => source.AsSpan(i).StartsWith(s, StringComparison.Ordinal)) ?? c.ToString();
                tokens.Add(new BicepToken(BicepTokenKind.Symbol, symbol, line));
                i += symbol.Length;
            }
            else
            {
                throw new BicepSyntaxException($"Line {line}: unexpected character '{c}'.");
            }
        }

        return tokens;
    }

    /// <summary>Reads a single-quoted string whose interpolations may hold strings and braces of their own.</summary>
    private static string ReadString(string source, ref int i, ref int line)
    {
        var text = new StringBuilder();
        i++;
        var interpolationDepth = 0;
        while (true)
        {
            if (i >= source.Length || source[i] == '\n')
            {
                throw new BicepSyntaxException($"Line {line}: unterminated string.");
            }

            var c = source[i];
            if (interpolationDepth == 0)
            {
                if (c == '\\')
                {
                    text.Append(c).Append(Peek(source, i + 1));
                    i += 2;
                    continue;
                }

                if (c == '\'')
                {
                    i++;
                    return text.ToString();
                }

                if (c == '$' && Peek(source, i + 1) == '{')
                {
                    interpolationDepth = 1;
                    text.Append("${");
                    i += 2;
                    continue;
                }

                text.Append(c);
                i++;
                continue;
            }

            if (c == '\'')
            {
                // A string inside an interpolation: copy it whole, quotes included.
                var inner = ReadString(source, ref i, ref line);
                text.Append('\'').Append(inner).Append('\'');
                continue;
            }

            interpolationDepth += c switch
            {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            text.Append(c);
            i++;
        }
    }

    private static char Peek(string source, int index) => index < source.Length ? source[index] : '\0';
}
