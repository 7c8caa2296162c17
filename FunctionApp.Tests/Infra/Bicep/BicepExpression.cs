namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>Any value that is not a literal object, array or string: kept as its tokens, not evaluated.</summary>
public sealed class BicepExpression : BicepNode
{
    public BicepExpression(int line, IReadOnlyList<BicepToken> tokens)
        : base(line) => Tokens = tokens;

    public IReadOnlyList<BicepToken> Tokens { get; }

    /// <summary>Tokens joined without layout: <c>subscriptionResourceId('…',roleIds.keyVaultSecretsUser)</c>.</summary>
    public override string Text
    {
        get
        {
            var text = new System.Text.StringBuilder();
            BicepToken? previous = null;
            foreach (var token in Tokens)
            {
                if (previous is { } p && IsWord(p) && IsWord(token))
                {
                    text.Append(' ');
                }

                text.Append(token.SourceText);
                previous = token;
            }

            return text.ToString();
        }
    }

    private static bool IsWord(BicepToken token) => token.Kind is BicepTokenKind.Identifier or BicepTokenKind.Number or BicepTokenKind.String;
}
