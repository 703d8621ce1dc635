/* Bad expression: operator without operand (line 4). */
int bad_expr(int x)
{
    return x * ;
}
