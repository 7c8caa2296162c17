namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>
/// Reads the top-level declarations of a .bicep or .bicepparam file into <see cref="BicepDeclaration"/>s, with
/// object and array literals as trees. A structural reader for tests, not a compiler: it checks no types and
/// resolves no symbols, and it throws on syntax it does not know instead of skipping it.
/// </summary>
public sealed class BicepParser
{
    private readonly IReadOnlyList<BicepToken> _tokens;
    private int _position;

    private BicepParser(IReadOnlyList<BicepToken> tokens) => _tokens = tokens;

    public static IReadOnlyList<BicepDeclaration> Parse(string source) => new BicepParser(BicepLexer.Tokenize(source)).ParseFile();

    private BicepToken Current => _position < _tokens.Count ? _tokens[_position] : new BicepToken(BicepTokenKind.NewLine, "\n", LastLine);

    private int LastLine => _tokens.Count == 0 ? 1 : _tokens[^1].Line;

    private bool AtEnd => _position >= _tokens.Count;

    private List<BicepDeclaration> ParseFile()
    {
        var declarations = new List<BicepDeclaration>();
        var decorators = new List<BicepDecorator>();
        while (true)
        {
            SkipNewLines();
            if (AtEnd)
            {
                break;
            }

            if (Current.IsSymbol("@"))
            {
                decorators.Add(ParseDecorator());
                continue;
            }

            declarations.Add(ParseDeclaration(decorators));
            decorators = [];
        }

        return decorators.Count == 0 ? declarations : throw Error("decorator without a declaration");
    }

    private BicepDecorator ParseDecorator()
    {
        Expect("@");
        var name = ExpectIdentifier();
        var arguments = new List<BicepNode>();
        if (Current.IsSymbol("("))
        {
            _position++;
            while (true)
            {
                SkipNewLinesAndCommas();
                if (Current.IsSymbol(")"))
                {
                    _position++;
                    break;
                }

                arguments.Add(ParseValue());
            }
        }

        return new BicepDecorator(name, arguments);
    }

    private BicepDeclaration ParseDeclaration(List<BicepDecorator> decorators)
    {
        var line = Current.Line;
        var keyword = ExpectIdentifier();
        switch (keyword)
        {
            case "targetScope":
                Expect("=");
                return new BicepDeclaration(BicepDeclarationKind.TargetScope, keyword, null, decorators, ParseValue(), null, false, line);
            case "using":
                return new BicepDeclaration(BicepDeclarationKind.Using, ExpectString(), null, decorators, null, null, false, line);
            case "param":
                {
                    var name = ExpectIdentifier();
                    var type = ReadTypeUntilAssignment();
                    var value = TryAssignment();
                    return new BicepDeclaration(BicepDeclarationKind.Param, name, type, decorators, value, null, false, line);
                }

            case "var":
                {
                    var name = ExpectIdentifier();
                    Expect("=");
                    return new BicepDeclaration(BicepDeclarationKind.Var, name, null, decorators, ParseValue(), null, false, line);
                }

            case "output":
                {
                    var name = ExpectIdentifier();
                    var type = ReadTypeUntilAssignment() ?? throw Error($"output '{name}' has no type");
                    Expect("=");
                    return new BicepDeclaration(BicepDeclarationKind.Output, name, type, decorators, ParseValue(), null, false, line);
                }

            case "resource":
            case "module":
                {
                    var name = ExpectIdentifier();
                    var type = ExpectString();
                    var existing = false;
                    if (Current.IsIdentifier("existing"))
                    {
                        existing = true;
                        _position++;
                    }

                    Expect("=");
                    string? condition = null;
                    if (Current.IsIdentifier("if"))
                    {
                        _position++;
                        condition = ReadBalanced("(", ")").Text;
                    }

                    if (Current.IsSymbol("["))
                    {
                        throw Error($"'{name}' is a loop; the structural checks do not read loops");
                    }

                    var body = ParseObject();
                    var kind = keyword == "resource" ? BicepDeclarationKind.Resource : BicepDeclarationKind.Module;
                    return new BicepDeclaration(kind, name, type, decorators, body, condition, existing, line);
                }

            default:
                throw Error($"unsupported statement '{keyword}'");
        }
    }

    /// <summary>The declared type of a param or output: everything up to '=' or the end of the line.</summary>
    private string? ReadTypeUntilAssignment()
    {
        var tokens = new List<BicepToken>();
        while (!AtEnd && Current.Kind != BicepTokenKind.NewLine && !Current.IsSymbol("="))
        {
            tokens.Add(Current);
            _position++;
        }

        return tokens.Count == 0 ? null : new BicepExpression(tokens[0].Line, tokens).Text;
    }

    private BicepNode? TryAssignment()
    {
        if (!Current.IsSymbol("="))
        {
            return null;
        }

        _position++;
        return ParseValue();
    }

    private BicepNode ParseValue()
    {
        if (Current.IsSymbol("{"))
        {
            return ParseObject();
        }

        if (Current.IsSymbol("["))
        {
            return NextNonNewLine(_position + 1).IsIdentifier("for") ? ReadBalanced("[", "]") : ParseArray();
        }

        if (Current.Kind == BicepTokenKind.String && IsValueEnd(_position + 1))
        {
            var token = Current;
            _position++;
            var multiLine = token.Text.Contains('\n', StringComparison.Ordinal);
            return new BicepString(token.Line, token.Text, multiLine);
        }

        return ParseExpression();
    }

    /// <summary>An expression runs to the end of its line, or to a ',' or closing bracket, outside any brackets.</summary>
    private BicepExpression ParseExpression()
    {
        var line = Current.Line;
        var tokens = new List<BicepToken>();
        var depth = 0;
        while (!AtEnd)
        {
            var token = Current;
            if (depth == 0 && (token.Kind == BicepTokenKind.NewLine || token.IsSymbol(",") || token.IsSymbol("}") || token.IsSymbol("]") || token.IsSymbol(")")))
            {
                break;
            }

            if (token.IsSymbol("(") || token.IsSymbol("[") || token.IsSymbol("{"))
            {
                depth++;
            }
            else if (token.IsSymbol(")") || token.IsSymbol("]") || token.IsSymbol("}"))
            {
                depth--;
            }

            if (token.Kind != BicepTokenKind.NewLine)
            {
                tokens.Add(token);
            }

            _position++;
        }

        return tokens.Count == 0 ? throw Error("expected a value") : new BicepExpression(line, tokens);
    }

    private BicepObject ParseObject()
    {
        var line = Current.Line;
        Expect("{");
        var properties = new List<KeyValuePair<string, BicepNode>>();
        while (true)
        {
            SkipNewLinesAndCommas();
            if (Current.IsSymbol("}"))
            {
                _position++;
                return new BicepObject(line, properties);
            }

            string key;
            if (Current.Kind == BicepTokenKind.Identifier)
            {
                key = Current.Text;
                _position++;
            }
            else if (Current.Kind == BicepTokenKind.String)
            {
                key = Current.SourceText;
                _position++;
            }
            else
            {
                throw Error("expected a property name");
            }

            Expect(":");
            properties.Add(new KeyValuePair<string, BicepNode>(key, ParseValue()));
            if (!(Current.Kind == BicepTokenKind.NewLine || Current.IsSymbol(",") || Current.IsSymbol("}")))
            {
                throw Error($"unexpected '{Current.Text}' after property '{key}'");
            }
        }
    }

    private BicepArray ParseArray()
    {
        var line = Current.Line;
        Expect("[");
        var items = new List<BicepNode>();
        while (true)
        {
            SkipNewLinesAndCommas();
            if (Current.IsSymbol("]"))
            {
                _position++;
                return new BicepArray(line, items);
            }

            items.Add(ParseValue());
        }
    }

    /// <summary>Reads from an opening bracket to its match, as one expression.</summary>
    private BicepExpression ReadBalanced(string open, string close)
    {
        var line = Current.Line;
        var tokens = new List<BicepToken>();
        var depth = 0;
        do
        {
            if (AtEnd)
            {
                throw Error($"unbalanced '{open}'");
            }

            var token = Current;
            if (token.IsSymbol(open))
            {
                depth++;
            }
            else if (token.IsSymbol(close))
            {
                depth--;
            }

            if (token.Kind != BicepTokenKind.NewLine)
            {
                tokens.Add(token);
            }

            _position++;
        }
        while (depth > 0);
        return new BicepExpression(line, tokens);
    }

    private bool IsValueEnd(int index)
    {
        if (index >= _tokens.Count)
        {
            return true;
        }

        var token = _tokens[index];
        return token.Kind == BicepTokenKind.NewLine || token.IsSymbol(",") || token.IsSymbol("}") || token.IsSymbol("]") || token.IsSymbol(")");
    }

    private BicepToken NextNonNewLine(int index)
    {
        while (index < _tokens.Count && _tokens[index].Kind == BicepTokenKind.NewLine)
        {
            index++;
        }

        return index < _tokens.Count ? _tokens[index] : new BicepToken(BicepTokenKind.NewLine, "\n", LastLine);
    }

    private void SkipNewLines()
    {
        while (!AtEnd && Current.Kind == BicepTokenKind.NewLine)
        {
            _position++;
        }
    }

    private void SkipNewLinesAndCommas()
    {
        while (!AtEnd && (Current.Kind == BicepTokenKind.NewLine || Current.IsSymbol(",")))
        {
            _position++;
        }
    }

    private void Expect(string symbol)
    {
        if (!Current.IsSymbol(symbol))
        {
            throw Error($"expected '{symbol}'");
        }

        _position++;
    }

    private string ExpectIdentifier()
    {
        if (Current.Kind != BicepTokenKind.Identifier)
        {
            throw Error("expected an identifier");
        }

        return _tokens[_position++].Text;
    }

    private string ExpectString()
    {
        if (Current.Kind != BicepTokenKind.String)
        {
            throw Error("expected a string");
        }

        return _tokens[_position++].Text;
    }

    private BicepSyntaxException Error(string message) =>
        new($"Line {Current.Line}: {message} (at '{Current.Text.Replace("\n", "\\n", StringComparison.Ordinal)}').");
}
